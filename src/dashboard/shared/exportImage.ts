// The size of an exported chart image. The chart on screen is often narrow (383 px beside the others); the PNG is
// drawn again at a larger pixel ratio, so it is sharp at a size that reads on a slide or in a paper. No DOM, no `vscode`.

/** The narrowest exported chart image, in pixels. */
export const EXPORT_MIN_WIDTH = 1200;

/**
 * The pixel ratio to draw an exported chart at: the screen's (`screenRatio`, the canvas' device pixels per CSS pixel)
 * times the smallest whole factor that makes a chart `cssWidth` CSS pixels wide at least `minWidth` pixels wide. A
 * whole factor scales every line, font and legend swatch of the chart as drawn on screen by the same amount.
 * 383 px at ratio 1: ×4 (1532 px); at ratio 2: ×2 (1532 px); 1300 px: ×1.
 */
export function exportPixelRatio(cssWidth: number, screenRatio: number, minWidth = EXPORT_MIN_WIDTH): number {
  const ratio = Number.isFinite(screenRatio) && screenRatio > 0 ? screenRatio : 1;
  if (!Number.isFinite(cssWidth) || cssWidth <= 0) return ratio;
  return ratio * Math.max(1, Math.ceil(minWidth / (cssWidth * ratio)));
}
