// Worker thread of ExperimentService: validates experiment text or bytes off the extension host's thread (reading a
// 1 MiB file takes about a second; the host must not stop for that). Same validator, same problems.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { ExperimentSchema, type JsonSchema } from './experimentSchema';

export interface ValidationRequest {
  id: number;
  text?: string;
  bytes?: Uint8Array;
}

const port = parentPort;
if (port) {
  const schema = new ExperimentSchema(JSON.parse(readFileSync((workerData as { schemaFile: string }).schemaFile, 'utf8')) as JsonSchema);
  port.on('message', (request: ValidationRequest) => {
    try {
      const problems = request.bytes ? schema.validateBytes(request.bytes) : schema.validate(request.text ?? '');
      port.postMessage({ id: request.id, problems });
    } catch (error) {
      port.postMessage({ id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
}
