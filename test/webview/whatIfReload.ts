// What if… across a reload of the page: the webview re-created (hidden and shown again, or reloaded) while the host is
// answering one of its requests. The page in Chromium talks to the real host side — the channel
// (src/webviewHost/webviewChannel.ts) and What if…'s desk (src/whatIf/core/whatIfDesk.ts) — with only the rescoring
// and the export standing in (test/webview/hostBridge.ts). Whatever a reload or a closing panel ends, the view stays
// usable: Rescore is enabled unless something really runs, and then the view says what.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { WhatIfDesk, type WhatIfWork } from '../../src/whatIf/core/whatIfDesk';
import type { WhatIfQuestion, WhatIfReply, WhatIfResultRecord, WhatIfState } from '../../src/whatIf/shared/whatIfRecord';
import { VIEWER_TO_HOST, type ViewerToHost, type ViewerToWebview } from '../../src/trajectory/shared/protocol';
import type { Trajectory } from '../../src/runs/shared/types';
import type { Context, TestCase } from './run';
import { openBridged } from './hostBridge';
import { syntheticTrajectory } from './synthetic';
import { shiftedResult } from './whatIf';

const QUESTION: WhatIfQuestion = { text: 'No ONNX export of checkpoints/step-000006. Score through the trainer?', accept: 'Score with the trainer', exportCheckpoint: 'checkpoints/step-000006' };

interface Pending<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** The rescoring and the export, standing in: each call waits until the test settles it. The saved file holds
 * `saved`; results not saved live only here, as in WhatIfSession. */
class StandInWork implements WhatIfWork {
  readonly rescores: Array<{ skill: string; useTrainer: boolean } & Pending<WhatIfReply>> = [];
  readonly exports: Array<{ checkpoint: string } & Pending<void>> = [];
  saved: WhatIfState = { results: [] };
  private results: WhatIfResultRecord[] = [];
  private file: string | undefined;

  reopen(): WhatIfState {
    this.results = [...this.saved.results];
    this.file = this.saved.file;
    return this.state();
  }

  state(): WhatIfState {
    return { results: [...this.results], ...(this.file ? { file: this.file } : {}) };
  }

  rescore(skill: string, useTrainer: boolean): Promise<WhatIfReply> {
    return new Promise((resolve, reject) => this.rescores.push({ skill, useTrainer, resolve, reject }));
  }

  /** Ends the n-th rescoring with a result. */
  finish(n: number, record: WhatIfResultRecord): void {
    this.results.push(record);
    this.file = undefined;
    this.rescores[n]!.resolve({ kind: 'rescored', state: this.state() });
  }

  async save(): Promise<WhatIfState> {
    this.saved = this.state();
    this.file = this.saved.file = 'whatif/it-000007-0001.json';
    return this.state();
  }

  exportCheckpoint(checkpoint: string): Promise<void> {
    return new Promise((resolve, reject) => this.exports.push({ checkpoint, resolve, reject }));
  }
}

/** The viewer's page joined to a desk over the real channel; the host shows the trajectory at every ready, as the
 * panel does. */
async function openViewer(context: Context, trajectory: Trajectory) {
  const work = new StandInWork();
  const desk = new WhatIfDesk(work);
  const bridged = await openBridged<ViewerToWebview, ViewerToHost>(context.browser, context.server, 'trajectory', VIEWER_TO_HOST, (channel) => {
    channel.handle(desk.handlers).onReady(() => {
      channel.post('show', { runDir: '/runs/valid', run: 'valid', trajectory });
      const restored = desk.restored();
      if (restored) channel.post('whatIfState', restored);
    });
  });
  await bridged.view.waitFor('rendered');
  return { ...bridged, work, desk };
}

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until Rescore is `enabled` or not and the status matches; fails saying what the page shows instead. */
async function expectView(page: Page, what: string, enabled: boolean, status: RegExp): Promise<void> {
  try {
    await page.waitForFunction(
      ([on, source]) => {
        const button = document.querySelector<HTMLButtonElement>('[data-action="whatif-rescore"]');
        const text = document.querySelector('[data-k="whatif-status"]')?.textContent ?? '';
        return button !== null && button.disabled === !on && new RegExp(source).test(text);
      },
      [enabled, status.source] as const,
      { timeout: 5_000 },
    );
  } catch {
    const shown = await page.evaluate(() => ({
      disabled: document.querySelector<HTMLButtonElement>('[data-action="whatif-rescore"]')?.disabled,
      status: document.querySelector('[data-k="whatif-status"]')?.textContent,
      hidden: document.querySelector<HTMLElement>('#whatif')?.hidden,
    }));
    assert.fail(`${what}: wanted Rescore ${enabled ? 'enabled' : 'disabled'} and a status like ${status}; the page shows Rescore ${shown.disabled ? 'disabled' : 'enabled'}, status "${shown.status}"${shown.hidden ? ', the section hidden' : ''}`);
  }
}

const rescoreButton = (page: Page) => page.locator('[data-action="whatif-rescore"]');

export const whatIfReloadTests: TestCase[] = [
  [
    'viewer: reloaded while the host rescores, the page shows the rescoring, then its result; a question pending is asked again',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 2, tokensPerTurn: 12 });
      const { view, work, reload } = await openViewer(context, trajectory);
      try {
        await view.page.locator('[data-action="what-if"]').click();
        await view.page.locator('.whatif-skill').fill('Open the fridge last.');
        await rescoreButton(view.page).click();
        await until('the host to start rescoring', () => work.rescores.length === 1);
        await expectView(view.page, 'while rescoring', false, /Rescoring/);

        await reload();
        await expectView(view.page, 'reloaded while the host rescores', false, /Rescoring/);
        assert.equal(await view.page.locator('.whatif-skill').inputValue(), 'Open the fridge last.', 'the skill being rescored');
        work.finish(0, shiftedResult(trajectory, 'Open the fridge last.', 0.2));
        await view.page.locator('.whatif-summary tr[data-result="0"]').waitFor({ timeout: 10_000 });
        await expectView(view.page, 'the rescoring started before the reload has ended', true, /onnxruntime-node \(cpu\) in 1\.25 s/);

        // The unsaved result is the host's: a second reload shows it again.
        await reload();
        await view.page.locator('.whatif-summary tr[data-result="0"]').waitFor({ timeout: 10_000 });
        await expectView(view.page, 'reloaded with an unsaved result', true, /not saved/);

        // A question pending at a reload is the page's alone: the host runs nothing, and Rescore asks again. The page
        // keeps the section open and the skill typed (VS Code keeps a webview's state).
        await view.page.locator('.whatif-skill').fill('Never open the fridge.');
        await rescoreButton(view.page).click();
        await until('the second rescoring', () => work.rescores.length === 2);
        work.rescores[1]!.resolve({ kind: 'needsConsent', question: QUESTION });
        await view.page.locator('[data-k="whatif-question"]').waitFor({ state: 'visible' });
        await expectView(view.page, 'a question asked', true, /Waiting for your answer/);
        await reload();
        await expectView(view.page, 'reloaded with a question pending', true, /not saved/);
        assert.equal(await view.page.locator('.whatif-skill').inputValue(), 'Never open the fridge.');
        await rescoreButton(view.page).click();
        await until('the third rescoring', () => work.rescores.length === 3);
        work.rescores[2]!.resolve({ kind: 'needsConsent', question: QUESTION });
        await view.page.locator('[data-action="whatif-accept"]').click();
        await until('the rescoring with consent', () => work.rescores.length === 4);
        assert.deepEqual([work.rescores[3]!.skill, work.rescores[3]!.useTrainer], ['Never open the fridge.', true]);
        await expectView(view.page, 'rescoring with the trainer', false, /Rescoring with the trainer/);
        work.finish(3, { ...shiftedResult(trajectory, 'Open the fridge last.', 0.1), path: 'trainer' });
        await view.page.locator('.whatif-summary tr[data-result="1"]').waitFor({ timeout: 10_000 });
        await expectView(view.page, 'rescored with the trainer', true, /the trainer \(cpu\)/);
        assert.deepEqual(view.errors, []);
      } finally {
        await view.close();
      }
    },
  ],
  [
    'viewer: reloaded while the host exports a checkpoint, the page shows the export and is usable once it has ended',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 2, tokensPerTurn: 12 });
      const { view, work, reload } = await openViewer(context, trajectory);
      try {
        await view.page.locator('[data-action="what-if"]').click();
        await rescoreButton(view.page).click();
        await until('the host to start rescoring', () => work.rescores.length === 1);
        work.rescores[0]!.resolve({ kind: 'needsConsent', question: QUESTION });
        await view.page.locator('[data-action="whatif-export"]').click();
        await until('the host to start exporting', () => work.exports.length === 1);
        assert.equal(work.exports[0]!.checkpoint, 'checkpoints/step-000006');
        await expectView(view.page, 'while exporting', false, /Exporting checkpoints\/step-000006/);
        await reload();
        await expectView(view.page, 'reloaded while the host exports', false, /Exporting checkpoints\/step-000006/);
        work.exports[0]!.resolve();
        await expectView(view.page, 'the export started before the reload has ended', true, /export.*ended/i);
        assert.deepEqual(view.errors, []);
      } finally {
        await view.close();
      }
    },
  ],
  [
    'viewer: a rescoring ended by the panel closing leaves the view usable, saying why',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 2, tokensPerTurn: 12 });
      const { view, work, channel } = await openViewer(context, trajectory);
      try {
        await view.page.locator('[data-action="what-if"]').click();
        await rescoreButton(view.page).click();
        await until('the host to start rescoring', () => work.rescores.length === 1);
        channel.dispose();
        await expectView(view.page, 'the panel closed while rescoring', true, /Not rescored: \u2068?the panel was closed before whatIf was answered/);
      } finally {
        await view.close();
      }
    },
  ],
];
