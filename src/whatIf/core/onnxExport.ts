// An ONNX export folder (python -m seed_trainer export --format onnx): export.json checked against
// schemas/onnx-export.schema.json, and the tokenizer files and chat template a rescorer needs, read once.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { RunSchemas } from '../../runs/core/schemas';
import type { OnnxExportMeta } from '../../runs/shared/generated/onnxExport';
import { WhatIfError } from './errors';

export interface OnnxExport {
  dir: string;
  meta: OnnxExportMeta;
  modelPath: string;
  /** model.onnx and its external data files: what onnxruntime reads into memory. */
  modelBytes: number;
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  chatTemplate: string;
}

const FILES = ['export.json', 'model.onnx', 'tokenizer.json', 'tokenizer_config.json'] as const;

function readJson(dir: string, name: string): Record<string, unknown> {
  const file = path.join(dir, name);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new WhatIfError('export', `${file}: not readable JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new WhatIfError('export', `${file}: not a JSON object`);
  return value as Record<string, unknown>;
}

/** Reads and checks an export folder; throws a WhatIfError naming the file and the problem. */
export function loadOnnxExport(dir: string, schemas: RunSchemas = RunSchemas.load()): OnnxExport {
  for (const name of FILES) {
    if (!existsSync(path.join(dir, name))) {
      throw new WhatIfError('export', `${dir} is not an ONNX export: ${name} is missing (python -m seed_trainer export --format onnx writes it).`);
    }
  }
  let meta: OnnxExportMeta;
  try {
    meta = schemas.validate('onnx-export', readJson(dir, 'export.json'), { file: 'export.json', path: path.join(dir, 'export.json') });
  } catch (error) {
    throw new WhatIfError('export', `${(error as Error).message} (an export from an older trainer: export the checkpoint again)`);
  }
  const tokenizerJson = readJson(dir, 'tokenizer.json');
  const tokenizerConfig = readJson(dir, 'tokenizer_config.json');
  const templateFile = path.join(dir, 'chat_template.jinja');
  const chatTemplate = existsSync(templateFile) ? readFileSync(templateFile, 'utf8') : tokenizerConfig.chat_template;
  if (typeof chatTemplate !== 'string' || !chatTemplate) {
    throw new WhatIfError('export', `${dir}: no chat template (chat_template.jinja or tokenizer_config.json's chat_template).`);
  }
  const vocab = tokenizerVocabSize(tokenizerJson);
  if (vocab > meta.vocab_size) {
    throw new WhatIfError('mismatch', `${dir}: the tokenizer has ${vocab} tokens but the model only ${meta.vocab_size} logits — tokenizer.json belongs to another model.`);
  }
  const modelPath = path.join(dir, 'model.onnx');
  const modelBytes = onnxModelBytes(dir);
  return { dir, meta, modelPath, modelBytes, tokenizerJson, tokenizerConfig, chatTemplate };
}

// What an export folder holds besides the model: JSON (export.json, tokenizer and model configs), the template and
// tokenizer vocabularies. Everything else is the model: model.onnx and, for models over protobuf's 2 GB limit, the
// external data files torch.onnx.export writes beside it (one per tensor, named after it, or model.onnx.data).
const NOT_MODEL = /\.(json|jinja|txt|model|md)$/i;

/** The bytes onnxruntime loads for an export: model.onnx plus its external data files. */
export function onnxModelBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && !NOT_MODEL.test(entry.name)) bytes += statSync(path.join(dir, entry.name)).size;
  }
  return bytes;
}

/** The largest token id the tokenizer can produce, plus one (vocabulary and added tokens). */
function tokenizerVocabSize(tokenizerJson: Record<string, unknown>): number {
  let top = -1;
  const model = tokenizerJson.model as { vocab?: Record<string, number> | [string, number][] } | undefined;
  const vocab = model?.vocab;
  if (vocab && !Array.isArray(vocab)) for (const id of Object.values(vocab)) top = Math.max(top, id);
  else if (Array.isArray(vocab)) top = Math.max(top, vocab.length - 1);
  for (const added of (tokenizerJson.added_tokens as { id: number }[] | undefined) ?? []) top = Math.max(top, added.id);
  return top + 1;
}

