// Whole-file replacement a concurrent reader sees either before or after: temp file beside the target, fsync, rename.
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

export async function writeFileAtomic(filePath: string, data: string | Uint8Array): Promise<void> {
  const tmp = path.join(path.dirname(filePath), `.${path.basename(filePath)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, filePath);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
}
