// What the trainer's `export` prints, read line by line (no vscode): on stdout one JSON line at the end,
// `{"type": "exported", "format", "path"}`; on stderr the progress bars of the libraries it drives (tqdm, redrawn with
// \r: `Loading weights: 100%|██████████| 46/46 [00:00<00:00, …]`, `Writing model shards: …| 1/1`), their warnings
// (`…/masking_utils.py:229: TracerWarning: …` while torch traces the model) and, when it fails, one `error: …` line
// (exit 2: not a model folder; exit 1: the export failed). The progress notification shows the latest bar, what comes
// after it and the time so far.
import { trainerErrorMessage } from '../../python/core/trainerCommand';
import type { ExportFormat } from './exportChoices';

export type ExportLine =
  | { kind: 'bar'; label: string; done: string; total: string; percent: number }
  | { kind: 'exported'; format: string; path: string }
  | { kind: 'error'; message: string }
  | { kind: 'warning'; category: string; message: string }
  | { kind: 'text'; text: string };

// `label: NN%|bar| done/total [elapsed<left, rate]`, the label optional; counts may be scaled (`1.2k`).
const BAR = /^(?:(.*?):\s*)?(\d{1,3})%\|[^|]*\|\s*([\d.]+[kMGTP]?)\/([\d.]+[kMGTP]?)\b/;
// Python's warnings module: `FILE:LINE: CategoryWarning: message`.
const WARNING = /^.+?:\d+: (\w*Warning): (.*)$/;

/** One line of the trainer's output, classified; undefined for a blank line. */
export function parseExportLine(line: string, stream: 'stdout' | 'stderr'): ExportLine | undefined {
  const text = line.trim();
  if (!text) return undefined;
  if (stream === 'stdout' && text.startsWith('{')) {
    try {
      const event = JSON.parse(text) as { type?: unknown; format?: unknown; path?: unknown; done?: unknown; total?: unknown };
      if (event.type === 'exported' && typeof event.path === 'string') return { kind: 'exported', format: String(event.format ?? ''), path: event.path };
      if (event.type === 'progress' && typeof event.done === 'number' && typeof event.total === 'number' && event.total > 0) {
        return { kind: 'bar', label: '', done: String(event.done), total: String(event.total), percent: Math.round((event.done / event.total) * 100) };
      }
    } catch {
      // not one of the trainer's events: a library's own print
    }
    return { kind: 'text', text };
  }
  if (text.startsWith('error: ')) return { kind: 'error', message: text.slice('error: '.length) };
  const bar = BAR.exec(text);
  if (bar) return { kind: 'bar', label: (bar[1] ?? '').trim(), done: bar[3]!, total: bar[4]!, percent: Math.min(100, Number(bar[2])) };
  const warning = WARNING.exec(text);
  if (warning) return { kind: 'warning', category: warning[1]!, message: warning[2]! };
  return { kind: 'text', text };
}

/** What follows the last progress bar, when it is full: the trainer prints nothing while torch writes model.onnx
 * (the longest part) or while the folder is saved. */
function afterBar(format: ExportFormat, label: string): string {
  if (format === 'onnx' && /load/i.test(label)) return 'tracing the model into model.onnx';
  if (format === 'hf' && /load/i.test(label)) return 'writing the folder';
  return 'finishing';
}

/** The notification's message as the trainer's lines arrive: the latest bar (and, once full, what comes next), and
 * the seconds so far. */
export class ExportProgress {
  private bar: Extract<ExportLine, { kind: 'bar' }> | undefined;

  constructor(private readonly format: ExportFormat) {}

  /** Takes a parsed line; true when the message changes. */
  take(line: ExportLine | undefined): boolean {
    if (line?.kind === 'bar') {
      const changed = line.label !== this.bar?.label || line.done !== this.bar.done || line.total !== this.bar.total;
      this.bar = line;
      return changed;
    }
    return false;
  }

  message(seconds: number): string {
    const time = `${Math.round(seconds)} s`;
    const bar = this.bar;
    if (!bar) return `starting the trainer's Python · ${time}`;
    const counts = `${bar.label ? `${bar.label} ` : ''}${bar.done}/${bar.total}`;
    if (bar.percent < 100 || bar.done !== bar.total) return `${counts} (${bar.percent} %) · ${time}`;
    return `${counts}, ${afterBar(this.format, bar.label)} · ${time}`;
  }
}

/** Why an export failed, in words: how it ended and the trainer's `error:` line (else the end of its stderr); a
 * missing `export` extra (the onnx package) is named with its fix. */
export function exportFailure(code: number | null, signal: string | null, stderr: string): { reason: string; missingExtra?: 'export' } {
  const how = code === 2 ? 'refused' : code === null ? `ended by ${signal ?? 'a signal'}` : `failed (exit ${code})`;
  const reason = `${how}: ${trainerErrorMessage(stderr)}`;
  const missing = /No module named '?(onnx|onnxscript)\b/.exec(stderr);
  if (!missing) return { reason };
  return { reason: `${reason}. The ONNX export needs the trainer's \`export\` extra (the ${missing[1]} package): install it with SEED: Set Up Trainer`, missingExtra: 'export' };
}
