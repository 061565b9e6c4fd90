// What the runners that drive a real VS Code through code-server share (test/integration/runInCodeServer.ts runs the
// extension's own suite in the extension host; test/ui/smoke.ts clicks through the workbench like a user):
//   - a session: fresh temporary user-data, extensions, XDG config/data and browser-profile folders, a temporary copy
//     of the fixture workspace, code-server on a free 127.0.0.1 port (ready when /healthz answers), headless
//     Chromium through playwright-core, and a cleanup that ends both, whatever happened;
//   - runCodeServerTest(): installs code-server when missing, enforces an overall timeout, handles signals, saves a
//     screenshot and the logs to test-results/ when the run fails, and exits with the result.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../../src/tensorboard/core/tensorBoardServers';
import { isTestFinishedLine, StallGuard } from './stallGuard';

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'seed-studio') return dir;
    if (path.dirname(dir) === dir) throw new Error(`no seed-studio package.json above ${start}`);
  }
}

export const repoRoot = findRepoRoot(__dirname);
export const resultsDir = path.join(repoRoot, 'test-results');
const fixtureWorkspace = path.join(repoRoot, 'test', 'integration', 'workspace');

export interface ExtensionManifest {
  publisher: string;
  name: string;
  version: string;
}

export function readManifest(): ExtensionManifest {
  return JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as ExtensionManifest;
}

/** Fails with the command to run when the build outputs a runner needs are missing. */
export function requireBuilt(...relativePaths: string[]): void {
  const missing = relativePaths.filter((file) => !existsSync(path.join(repoRoot, file)));
  if (missing.length > 0) throw new Error(`missing ${missing.join(', ')}: run \`npm run build\` first`);
}

/** The trainer's interpreter for the extension under test: $SEED_PYTHON, else the repository's .venv. */
export function trainerPython(): string {
  if (process.env.SEED_PYTHON) return process.env.SEED_PYTHON;
  const venv = path.join(repoRoot, '.venv', 'bin', 'python');
  if (existsSync(venv)) return venv;
  throw new Error('no trainer interpreter: set SEED_PYTHON, or run `npm run setup` to create .venv');
}

/** What every code-server runner needs before it starts: the built files and the trainer's interpreter. Exits the
 *  process with a one-line reason (prefixed by the runner's label) when either is missing. */
export function runnerPrerequisites(label: string, ...built: string[]): string {
  try {
    requireBuilt('dist/extension.js', ...built);
    return trainerPython();
  } catch (error) {
    console.error(`${label}: ${(error as Error).message}`);
    process.exit(1);
  }
}

async function ensureCodeServerBinary(): Promise<string> {
  // scripts/codeServer.mjs is an ES module; a dynamic import() loads it from this CommonJS file.
  const url = pathToFileURL(path.join(repoRoot, 'scripts', 'codeServer.mjs')).href;
  const module = (await import(url)) as typeof import('../../scripts/codeServer.mjs', { with: { 'resolution-mode': 'import' } });
  return module.ensureCodeServer();
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return '(no log)';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

/** Whether a process has exited (exitCode or signalCode set). */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(hasExited(child)), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export interface SessionOptions {
  /** Short name used in temporary folder names. */
  label: string;
  /** Extra environment for code-server, and so for the extension host it starts (SEED_PYTHON, ...). */
  env?: Record<string, string>;
  /** Install the repository as an extension (a symlink `<publisher>.<name>-<version>` in the extensions dir). */
  installExtension?: boolean;
  /** Install this VSIX instead (`code-server --install-extension`): the packaged extension, as a user gets it. */
  installVsix?: string;
}

const liveSessions = new Set<CodeServerSession>();

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Chromium's own lookups of Google hosts fail slowly here; only the local server is reachable anyway.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

/** One code-server with its own folders and (once openBrowser is called) one headless Chromium page. */
export class CodeServerSession {
  readonly workspace: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly logFile: string;
  /** Where the integration suite writes its JSON summary (SEED_TEST_RESULT_FILE in the extension host). */
  readonly resultFile: string;
  readonly browserConsole: string[] = [];
  port = 0;
  page: Page | undefined;
  private server: ChildProcess | undefined;
  private context: BrowserContext | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly root: string,
    private readonly codeServer: string,
  ) {
    this.workspace = path.join(root, 'workspace');
    this.userDataDir = path.join(root, 'user-data');
    this.extensionsDir = path.join(root, 'extensions');
    this.logFile = path.join(root, 'code-server.log');
    this.resultFile = path.join(root, 'test-result.json');
  }

  static async start(codeServer: string, options: SessionOptions): Promise<CodeServerSession> {
    const session = new CodeServerSession(mkdtempSync(path.join(os.tmpdir(), `seed-studio-${options.label}-`)), codeServer);
    liveSessions.add(session);
    session.prepareFolders(options);
    await session.startServer(options.env ?? {});
    return session;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A path on the server machine as the web workbench addresses it. */
  remoteUri(absolutePath: string): string {
    return `vscode-remote://127.0.0.1:${this.port}${absolutePath.split(path.sep).map(encodeURIComponent).join('/')}`;
  }

  /** The workbench URL with the workspace folder and, for extension tests, the `payload` pairs. */
  workbenchUrl(payload?: Array<[string, string]>): string {
    const query = new URLSearchParams({ folder: this.workspace });
    if (payload) query.set('payload', JSON.stringify(payload));
    return `${this.baseUrl}/?${query.toString()}`;
  }

  private prepareFolders(options: SessionOptions): void {
    for (const dir of [this.userDataDir, this.extensionsDir, path.join(this.root, 'xdg-config'), path.join(this.root, 'xdg-data')]) {
      mkdirSync(dir, { recursive: true });
    }
    cpSync(fixtureWorkspace, this.workspace, { recursive: true });
    // Quiet first start: no welcome page, release notes, tips, update or telemetry traffic.
    mkdirSync(path.join(this.userDataDir, 'User'), { recursive: true });
    writeFileSync(
      path.join(this.userDataDir, 'User', 'settings.json'),
      `${JSON.stringify(
        {
          'workbench.startupEditor': 'none',
          'workbench.tips.enabled': false,
          'workbench.enableExperiments': false,
          'telemetry.telemetryLevel': 'off',
          'update.mode': 'none',
          'extensions.autoCheckUpdates': false,
          'extensions.autoUpdate': false,
        },
        null,
        2,
      )}\n`,
    );
    if (options.installExtension) {
      const { publisher, name, version } = readManifest();
      symlinkSync(repoRoot, path.join(this.extensionsDir, `${publisher}.${name}-${version}`), 'dir');
    }
    if (options.installVsix) {
      execFileSync(this.codeServer, ['--extensions-dir', this.extensionsDir, '--user-data-dir', this.userDataDir, '--install-extension', options.installVsix], {
        env: this.serverEnv(options.env ?? {}),
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 180_000,
      });
    }
  }

  private serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      // Variables of an enclosing VS Code (its terminal, its extension host) would steer code-server's CLI.
      if (key.startsWith('VSCODE_') || key === 'ELECTRON_RUN_AS_NODE' || key === 'PASSWORD' || key === 'HASHED_PASSWORD') continue;
      env[key] = value;
    }
    return {
      ...env,
      // Every code-server start writes config.yaml under XDG_CONFIG_HOME: keep it out of the user's home.
      XDG_CONFIG_HOME: path.join(this.root, 'xdg-config'),
      XDG_DATA_HOME: path.join(this.root, 'xdg-data'),
      // No extension gallery: otherwise code-server asks open-vsx.org.
      EXTENSIONS_GALLERY: '{}',
      SEED_TEST_RESULT_FILE: this.resultFile,
      ...extra,
    };
  }

  private async startServer(extraEnv: Record<string, string>): Promise<void> {
    const env = this.serverEnv(extraEnv);
    for (let attempt = 1; ; attempt += 1) {
      this.port = await freePort();
      const log = openSync(this.logFile, 'a');
      const server = spawn(
        this.codeServer,
        [
          '--bind-addr', `127.0.0.1:${this.port}`,
          '--auth', 'none',
          '--user-data-dir', this.userDataDir,
          '--extensions-dir', this.extensionsDir,
          '--disable-telemetry',
          '--disable-update-check',
          '--disable-workspace-trust',
          '--disable-getting-started-override',
          '--ignore-last-opened',
          this.workspace,
        ],
        // Its own process group, so cleanup ends the extension host and the other children with it.
        { env, detached: true, stdio: ['ignore', log, log] },
      );
      closeSync(log);
      this.server = server;
      server.once('error', (error) => writeFileSync(this.logFile, `\nspawn failed: ${error.message}\n`, { flag: 'a' }));
      if (await this.waitUntilHealthy(server, 60_000)) return;
      const logTail = tail(this.logFile);
      await this.stopServer();
      // The port was free a moment ago; another process may have taken it since.
      if (attempt < 3 && /EADDRINUSE/.test(logTail)) continue;
      throw new Error(`code-server did not become ready on port ${this.port}. Its log ends:\n${logTail}`);
    }
  }

  private async waitUntilHealthy(server: ChildProcess, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !hasExited(server)) {
      try {
        const response = await fetch(`${this.baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) return true;
      } catch {
        // not listening yet
      }
      await delay(100);
    }
    return false;
  }

  /** Launches headless Chromium (a fresh profile) and returns its page, not yet navigated. */
  async openBrowser(): Promise<Page> {
    const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
    if (!existsSync(executablePath)) {
      throw new Error(`no Chromium at ${executablePath}: install Debian's chromium, or set CHROMIUM_PATH`);
    }
    this.context = await chromium.launchPersistentContext(path.join(this.root, 'chromium-profile'), {
      executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
      // Chromium keeps its crash-report database under XDG_CONFIG_HOME (~/.config) even with a profile dir.
      env: { ...process.env, XDG_CONFIG_HOME: path.join(this.root, 'xdg-config'), XDG_CACHE_HOME: path.join(this.root, 'xdg-cache') },
      // Signals are handled by runCodeServerTest, which closes the browser and code-server together.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    page.on('console', (message) => {
      this.browserConsole.push(`[${message.type()}] ${message.text()}`);
      if (isTestFinishedLine(message.text())) noteProgress();
    });
    page.on('pageerror', (error) => this.browserConsole.push(`[pageerror] ${error.stack ?? error.message}`));
    this.page = page;
    return page;
  }

  /** Screenshot, code-server log, VS Code's logs and the browser console, into test-results/<name>-*. */
  async saveArtifacts(name: string, extraLogs: Array<{ relativePath: string; contents: string }> = []): Promise<string[]> {
    mkdirSync(resultsDir, { recursive: true });
    const saved: string[] = [];
    const save = (file: string, write: () => void): void => {
      try {
        write();
        saved.push(path.relative(repoRoot, file));
      } catch (error) {
        console.error(`could not save ${file}: ${(error as Error).message}`);
      }
    };
    if (this.page && !this.page.isClosed()) {
      const file = path.join(resultsDir, `${name}-failure.png`);
      try {
        await this.page.screenshot({ path: file, timeout: 10_000 });
        saved.push(path.relative(repoRoot, file));
      } catch (error) {
        console.error(`could not take a screenshot: ${(error as Error).message}`);
      }
    }
    const logFile = path.join(resultsDir, `${name}-code-server.log`);
    save(logFile, () => cpSync(this.logFile, logFile));
    const consoleFile = path.join(resultsDir, `${name}-browser-console.log`);
    save(consoleFile, () => writeFileSync(consoleFile, `${this.browserConsole.join('\n')}\n`));
    const logsDir = path.join(resultsDir, `${name}-logs`);
    rmSync(logsDir, { recursive: true, force: true });
    const vscodeLogs = path.join(this.userDataDir, 'logs');
    if (existsSync(vscodeLogs)) save(logsDir, () => cpSync(vscodeLogs, logsDir, { recursive: true }));
    for (const log of extraLogs) {
      const file = path.join(logsDir, 'workbench', log.relativePath.replace(/\.\.(\/|\\)/g, ''));
      try {
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, log.contents);
      } catch {
        // best effort
      }
    }
    return saved;
  }

  /** Ends Chromium and code-server (its whole process group) and removes the temporary folders. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.context) {
        await Promise.race([this.context.close().catch(() => undefined), delay(5_000)]);
      }
      await this.stopServer();
      liveSessions.delete(this);
      if (process.env.SEED_KEEP_TEMP) console.log(`kept ${this.root} (SEED_KEEP_TEMP)`);
      else rmSync(this.root, { recursive: true, force: true, maxRetries: 3 });
    })();
    return this.closing;
  }

  private signalServer(signal: NodeJS.Signals): void {
    const pid = this.server?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }

  private async stopServer(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.signalServer('SIGTERM');
    if (!(await waitForExit(server, 5_000))) this.signalServer('SIGKILL');
    // The extension host and other children may outlive the server process itself.
    this.signalServer('SIGKILL');
    this.server = undefined;
  }

  /** Synchronous last resort for process 'exit': kill code-server's process group. (Playwright kills Chromium.) */
  killNow(): void {
    this.signalServer('SIGKILL');
  }
}

export interface RunnerOptions {
  /** Printed before the counts, e.g. "integration (code-server)". */
  label: string;
  /** Prefix of the files saved to test-results/ on failure. */
  artifactName: string;
  /** The longest the run may go without a test finishing (a hang), after code-server is installed; SEED_TEST_TIMEOUT_S
   * overrides it. */
  timeoutSeconds: number;
  session: SessionOptions;
}

/** The body returns whether the run passed; it may hand back logs to save with the failure artifacts. */
export type RunnerBody = (session: CodeServerSession) => Promise<{ passed: boolean; logs?: Array<{ relativePath: string; contents: string }> }>;

/** The running suite's hang guard (one suite per process): a test that finishes calls noteProgress. */
let guard: StallGuard | undefined;

/** A test finished (a UI step, a mocha test in the page): the runner's hang guard counts from now. */
export function noteProgress(): void {
  guard?.progressed();
}

/**
 * Installs code-server if needed, starts a session, runs the body under a hang guard and exits the process:
 * 0 when the body reports success, 1 otherwise (failure, error, timeout), 128+n on a signal. Chromium and
 * code-server are ended in every case; a failed run leaves its screenshot and logs in test-results/.
 */
export function runCodeServerTest(options: RunnerOptions, body: RunnerBody): void {
  let finishing = false;
  const finish = async (code: number, message?: string, logs?: Array<{ relativePath: string; contents: string }>): Promise<void> => {
    if (finishing) return;
    finishing = true;
    if (message) console.error(message);
    const sessions = [...liveSessions];
    if (code !== 0) {
      for (const session of sessions) {
        const saved = await session.saveArtifacts(options.artifactName, logs);
        if (saved.length > 0) console.error(`saved for diagnosis: ${saved.join(', ')}`);
      }
    }
    await Promise.all(sessions.map((session) => session.close()));
    process.exit(code);
  };

  process.on('exit', () => {
    for (const session of liveSessions) session.killNow();
  });
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    process.once(signal, () => void finish(code, `${options.label}: interrupted (${signal}); stopping code-server and Chromium`));
  }

  void (async () => {
    try {
      const codeServer = await ensureCodeServerBinary();
      const timeoutSeconds = Number(process.env.SEED_TEST_TIMEOUT_S) || options.timeoutSeconds;
      guard = new StallGuard(timeoutSeconds * 1000);
      guard.start(() => {
        void finish(1, `${options.label}: no test finished for ${timeoutSeconds} s (the limit is SEED_TEST_TIMEOUT_S, default ${options.timeoutSeconds}); ending code-server and Chromium`);
      });
      const session = await CodeServerSession.start(codeServer, options.session);
      const outcome = await body(session);
      guard.stop();
      await finish(outcome.passed ? 0 : 1, undefined, outcome.logs);
    } catch (error) {
      await finish(1, `${options.label}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  })();
}
