// A `vscode` module for unit tests that load the extension's own entry points (out/src/extension.js) outside VS Code.
// It records what is registered — commands (with their handlers: executeCommand runs them), webview panel
// serializers, custom editors, text content providers — and answers every other member with a callable, constructible
// stand-in whose members are the same (never a thenable, iterable as empty), as VS Code's queued RPCs return at once.
import Module from 'node:module';
import path from 'node:path';

type Handler = (...args: unknown[]) => unknown;

export interface Registrations {
  /** Commands registered now (a disposed one is removed). */
  commands: Map<string, Handler>;
  /** Every registerCommand call in order, disposed or not. */
  commandCalls: string[];
  panelSerializers: Map<string, { deserializeWebviewPanel(panel: unknown, state: unknown): unknown }>;
  customEditors: Map<string, { resolveCustomTextEditor(document: unknown, panel: unknown, token: unknown): unknown }>;
  textContent: Map<string, { provideTextDocumentContent(uri: unknown, token: unknown): unknown }>;
  /** Messages shown with showInformationMessage / showWarningMessage / showErrorMessage. */
  messages: string[];
}

function thing(name: string): unknown {
  const target = function () {};
  return new Proxy(target, {
    get(_t, key) {
      if (key === 'then') return undefined;
      if (key === Symbol.iterator) return function* () {};
      if (key === Symbol.toPrimitive) return () => name;
      if (key === 'dispose') return () => undefined;
      return thing(`${name}.${String(key)}`);
    },
    set: () => true,
    apply: () => thing(`${name}()`),
    construct: () => thing(`new ${name}`) as object,
  });
}

/** Unknown members of a namespace answer with a stand-in; the listed ones are what the code under test reads. */
function namespace(name: string, values: Record<string, unknown>): Record<string, unknown> {
  return new Proxy(values, { get: (target, key) => (key in target ? target[key as string] : thing(`${name}.${String(key)}`)) });
}

function registered<T>(map: Map<string, T>, key: string, value: T): { dispose(): void } {
  map.set(key, value);
  return { dispose: () => (map.get(key) === value ? map.delete(key) : undefined) };
}

export interface Uri {
  fsPath: string;
  path: string;
  scheme: string;
  query: string;
  toString(): string;
}

export function fileUri(fsPath: string): Uri {
  return { fsPath, path: fsPath, scheme: 'file', query: '', toString: () => `file://${fsPath}` };
}

/** Installs the stub as `vscode` for every later require in this process; returns what gets registered. */
export function installVscodeStub(): Registrations {
  const record: Registrations = { commands: new Map(), commandCalls: [], panelSerializers: new Map(), customEditors: new Map(), textContent: new Map(), messages: [] };
  const show = (message: string) => {
    record.messages.push(message);
    return Promise.resolve(undefined);
  };
  const api: Record<string, unknown> = {
    Uri: {
      file: fileUri,
      joinPath: (base: Uri, ...parts: string[]) => fileUri(path.join(base.fsPath, ...parts)),
      parse: (text: string) => {
        const url = new URL(text);
        return { fsPath: url.pathname, path: url.pathname, scheme: url.protocol.replace(/:$/, ''), query: url.search.replace(/^\?/, ''), toString: () => text };
      },
    },
    Disposable: Object.assign(function () {}, { from: (...items: Array<{ dispose(): void }>) => ({ dispose: () => items.forEach((item) => item.dispose()) }) }),
    commands: namespace('commands', {
      registerCommand: (id: string, handler: Handler) => {
        if (record.commands.has(id)) throw new Error(`command '${id}' already exists`);
        record.commandCalls.push(id);
        return registered(record.commands, id, handler);
      },
      executeCommand: async (id: string, ...args: unknown[]) => {
        const handler = record.commands.get(id);
        return handler ? handler(...args) : undefined;
      },
    }),
    window: namespace('window', {
      activeTextEditor: undefined,
      visibleTextEditors: [],
      terminals: [],
      state: { focused: true },
      showInformationMessage: show,
      showWarningMessage: show,
      showErrorMessage: show,
      registerWebviewPanelSerializer: (viewType: string, serializer: never) => registered(record.panelSerializers, viewType, serializer),
      registerCustomEditorProvider: (viewType: string, provider: never) => registered(record.customEditors, viewType, provider),
    }),
    workspace: namespace('workspace', {
      isTrusted: true,
      workspaceFolders: undefined,
      textDocuments: [],
      getConfiguration: () => ({ get: (_key: string, fallback: unknown) => fallback, inspect: () => undefined, has: () => false, update: async () => undefined }),
      registerTextDocumentContentProvider: (scheme: string, provider: never) => registered(record.textContent, scheme, provider),
    }),
  };
  // The bundle's interop copies the module's own keys once, so every namespace the code may touch is listed.
  for (const name of ['languages', 'extensions', 'env', 'debug', 'tasks', 'l10n', 'EventEmitter', 'ThemeIcon', 'ThemeColor', 'TreeItem', 'TreeItemCollapsibleState', 'StatusBarAlignment', 'DiagnosticSeverity', 'Diagnostic', 'Range', 'Position', 'Selection', 'Location', 'CompletionItem', 'CompletionItemKind', 'CompletionList', 'SnippetString', 'MarkdownString', 'Hover', 'CodeLens', 'ProgressLocation', 'ConfigurationTarget', 'ExtensionMode', 'ViewColumn', 'CancellationError', 'CancellationTokenSource', 'RelativePattern', 'WorkspaceEdit', 'FileType', 'TextEdit', 'EndOfLine', 'DocumentLink', 'FoldingRange', 'FoldingRangeKind', 'CodeAction', 'CodeActionKind', 'UIKind', 'LogLevel', 'QuickPickItemKind', 'TabInputText', 'TabInputWebview', 'TabInputCustom', 'FileSystemError', 'Color', 'ColorThemeKind', 'TextDocumentSaveReason']) {
    api[name] ??= thing(name);
  }
  const file = path.join(__dirname, 'vscode-stub.virtual.js');
  const stub = new Module(file);
  stub.filename = file;
  stub.loaded = true;
  stub.exports = api;
  (Module as unknown as { _cache: Record<string, Module> })._cache[file] = stub;
  const internal = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = internal._resolveFilename;
  internal._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? file : resolve.call(this, request, ...rest);
  };
  return record;
}

/** The `vscode.ExtensionContext` an extension is activated with, for an extension at `root`. */
export function extensionContext(root: string): { subscriptions: Array<{ dispose(): void }>; extensionPath: string; extensionUri: Uri } & Record<string, unknown> {
  const state = { get: () => undefined, update: async () => undefined, keys: () => [] };
  return { subscriptions: [], extensionPath: root, extensionUri: fileUri(root), extensionMode: 1, workspaceState: state, globalState: state, storageUri: undefined, globalStorageUri: fileUri(path.join(root, '.storage')) };
}
