// Pictures of the product for the walkthrough and the user guide, taken by the code-server UI runs: a region's
// screenshot reduced to a 64-colour palette (Pillow, from the trainer's environment) so that each stays small.
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { readManifest } from '../integration/codeServerSession';
import { fail } from './workbench';

/** Step id → image path (relative to the repository), from package.json's walkthrough. */
export function walkthroughImages(): Map<string, string> {
  const manifest = readManifest() as unknown as { contributes: { walkthroughs: Array<{ steps: Array<{ id: string; media: { image: string } }> }> } };
  return new Map(manifest.contributes.walkthroughs[0]!.steps.map((step) => [step.id, step.media.image]));
}

/** The image of a walkthrough step, relative to the repository. */
export function walkthroughImage(step: string): string {
  return walkthroughImages().get(step) ?? fail(`package.json's walkthrough has no step ${step}`);
}

/** Screenshot of a region into `file`, then the palette reduction; returns the file's size in bytes. */
export async function shoot(region: Locator, file: string, python: string): Promise<number> {
  mkdirSync(path.dirname(file), { recursive: true });
  await region.screenshot({ path: file, animations: 'disabled' });
  const reduce = 'import sys; from PIL import Image; Image.open(sys.argv[1]).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(sys.argv[1], optimize=True)';
  execFileSync(python, ['-c', reduce, file]);
  return statSync(file).size;
}
