// Student and teacher prompt token ids from an export's tokenizer and chat template — the trainer's
// Policy.encode_chat and teacher.teacher_prompt_ids, rebuilt with kept libraries (@huggingface/tokenizers for BPE,
// @huggingface/jinja for the template) so the ids are the ones the trainer scored.
import type { Template } from '@huggingface/jinja' with { 'resolution-mode': 'import' };
import type { Tokenizer } from '@huggingface/tokenizers' with { 'resolution-mode': 'import' };
import { insertSkill, skillBlock, type SkillFormat } from './skillInsertion';
import type { OnnxExport } from './onnxExport';

// Both packages ship a CommonJS build beside their ES modules; required on first use, not at activation.
function loadTokenizers(): { Tokenizer: typeof Tokenizer; Template: typeof Template } {
  /* eslint-disable @typescript-eslint/no-require-imports -- deliberate lazy load (see above) */
  return {
    Tokenizer: (require('@huggingface/tokenizers') as { Tokenizer: typeof Tokenizer }).Tokenizer,
    Template: (require('@huggingface/jinja') as { Template: typeof Template }).Template,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

const SPECIAL_TOKEN_KEYS = ['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const;

export class PromptEncoder {
  private readonly tokenizer: Tokenizer;
  private readonly template: Template;
  private readonly templateContext: Record<string, unknown>;

  constructor(
    bundle: Pick<OnnxExport, 'tokenizerJson' | 'tokenizerConfig' | 'chatTemplate'>,
    private readonly format: SkillFormat,
  ) {
    const libraries = loadTokenizers();
    this.tokenizer = new libraries.Tokenizer(bundle.tokenizerJson, bundle.tokenizerConfig);
    this.template = new libraries.Template(bundle.chatTemplate);
    // transformers renders templates with the special tokens' strings in scope (`{{ eos_token }}`).
    this.templateContext = {};
    for (const key of SPECIAL_TOKEN_KEYS) {
      const value = bundle.tokenizerConfig[key];
      if (typeof value === 'string') this.templateContext[key] = value;
    }
  }

  /** One user turn through the chat template, with the generation prompt (the trainer's encode_chat). */
  render(userText: string): string {
    return this.template.render({ ...this.templateContext, messages: [{ role: 'user', content: userText }], add_generation_prompt: true });
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: ArrayLike<number>): string {
    return this.tokenizer.decode(Array.from(ids), { skip_special_tokens: true });
  }

  /** The student prompt: left-truncated to `maxPromptTokens`. */
  studentIds(userText: string, maxPromptTokens: number): number[] {
    const ids = this.encode(this.render(userText));
    return ids.length > maxPromptTokens ? ids.slice(-maxPromptTokens) : ids;
  }

  /** The teacher prompt H(h, s): too long, it loses tokens just after the skill block, so the task line, the skill
   * and the current observation survive (seed_trainer/rl/teacher.py). */
  teacherIds(userText: string, skill: string, maxPromptTokens: number): number[] {
    const teacher = insertSkill(userText, skill, this.format);
    const rendered = this.render(teacher);
    const ids = this.encode(rendered);
    if (ids.length <= maxPromptTokens) return ids;
    const block = skillBlock(skill, this.format);
    const at = rendered.indexOf(block);
    if (!teacher.includes(block) || at === -1) return ids.slice(-maxPromptTokens);
    const cut = at + block.length;
    const head = this.encode(rendered.slice(0, cut));
    const tail = this.encode(rendered.slice(cut));
    const keep = maxPromptTokens - head.length;
    if (keep <= 0) return [...head, ...tail].slice(-maxPromptTokens);
    return [...head, ...tail.slice(-keep)];
  }
}
