// Untrusted text (observations, responses, skills, task names) made safe to *show*: characters that reorder or hide
// text are replaced by visible markers, so what a reader sees is what the string holds. The webviews still put the
// result into the page with textContent only; this is about honest display, not about escaping HTML.
// No vscode and no Node APIs: the webviews import this module too.

/** Bidirectional formatting controls (embeddings, overrides, isolates, marks). */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/** Invisible characters that hide text boundaries (zero-width space, word joiner, BOM). ZWJ stays: emoji use it. */
const INVISIBLES = /[\u200B\u2060\uFEFF]/;
/** C0 controls other than tab and newline, and DEL. */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || code === 0x7f;
}

function hex(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, '0');
}

/** The visible stand-in of one character that must not act: `⟦U+202E⟧`, or a control picture (␀, ␛, ␡). */
function markerFor(char: string): string {
  const code = char.charCodeAt(0);
  if (code <= 0x1f) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\u27E6U+${hex(code)}\u27E7`;
}

/** Whether `text` holds anything displayText would change (fast path for the common clean string). */
export function needsMarkers(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x09 && code !== 0x0a) return true;
    if (code === 0x7f) return true;
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i += 1;
        continue;
      }
      return true;
    }
    if ((code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return true;
    if (code === 0x061c || code === 0x2060 || code === 0xfeff) return true;
  }
  return false;
}

/**
 * `text` with bidi controls and invisibles shown as `⟦U+XXXX⟧`, C0 controls as control pictures (CR LF stays a
 * newline), and lone surrogates (what broken UTF-16 or a JSON `\udc80` escape leaves) as U+FFFD.
 */
export function displayText(text: string): string {
  if (!needsMarkers(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    const code = char.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += char + text[i + 1]!;
        i += 1;
      } else {
        out += '\uFFFD';
      }
      continue;
    }
    if (code === 0x0d && text.charCodeAt(i + 1) === 0x0a) continue; // CRLF → LF
    if (isControl(code) || BIDI_CONTROLS.test(char) || INVISIBLES.test(char)) out += markerFor(char);
    else out += char;
  }
  return out;
}

/**
 * displayText wrapped in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE, for untrusted text placed inside a longer
 * line (a run name in a status line, a chart legend, a tree row): right-to-left text in it cannot reorder what is
 * around it. Where an element of its own holds the text, CSS `unicode-bidi: isolate` does the same.
 */
export function isolatedText(text: string): string {
  return `\u2068${displayText(text)}\u2069`;
}

/** At most `max` UTF-16 units of `text` (not splitting a surrogate pair) and how many were left out. */
export function clip(text: string, max: number): { text: string; omitted: number } {
  if (text.length <= max) return { text, omitted: 0 };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), omitted: text.length - end };
}
