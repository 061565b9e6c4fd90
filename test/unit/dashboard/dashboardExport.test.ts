// Issue 54 item 9: an exported chart image was the on-screen 383 px wide, and nothing said where it was saved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { savedExportNotice } from '../../../src/dashboard/core/savedExport';
import { EXPORT_MIN_WIDTH, exportPixelRatio } from '../../../src/dashboard/shared/exportImage';

test('an exported chart is drawn at a whole multiple of the screen pixel ratio, at least 1200 px wide', () => {
  assert.equal(EXPORT_MIN_WIDTH, 1200);
  assert.equal(exportPixelRatio(383, 1), 4); // 1532 px
  assert.equal(exportPixelRatio(383, 2), 4); // ×2 of the screen's 766 device px
  assert.equal(exportPixelRatio(600, 1), 2);
  assert.equal(exportPixelRatio(599, 1), 3);
  assert.equal(exportPixelRatio(1300, 1), 1, 'wide enough already: as on screen');
  assert.equal(exportPixelRatio(1300, 2), 2);
  for (const [width, screen] of [[383, 1], [383, 1.25], [401, 1.5], [50, 3], [1199.9, 1]] as const) {
    const ratio = exportPixelRatio(width, screen);
    assert.ok(Number.isInteger(ratio / screen) && ratio / screen >= 1, `${width} at ${screen}: ×${ratio / screen}`);
    assert.ok(Math.floor(width * ratio) >= 1200, `${width} at ${screen}: ${width * ratio} px`);
  }
  assert.equal(exportPixelRatio(0, 2), 2, 'no width: the screen ratio');
  assert.equal(exportPixelRatio(383, 0), 4, 'no screen ratio: 1');
});

test('a saved export names its file and offers Open and Reveal', () => {
  const inside = savedExportNotice('/work/project/charts/pg.png', true);
  assert.equal(inside.text, 'SEED: saved pg.png');
  assert.deepEqual(inside.actions, [{ title: 'Open', command: 'vscode.open' }, { title: 'Reveal', command: 'revealInExplorer' }]);
  const outside = savedExportNotice('C:\\Users\\me\\Desktop\\eval.csv', false);
  assert.equal(outside.text, 'SEED: saved eval.csv');
  assert.equal(outside.actions[1]?.command, 'revealFileInOS');
});
