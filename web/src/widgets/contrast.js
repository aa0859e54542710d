// Colour contrast as WCAG 2.x defines it: the relative luminance of an sRGB colour and the
// contrast ratio of two colours. Text on a coloured background (a heatmap cell) takes black or
// white, whichever contrasts more; either reaches at least 4.58:1 on any background (AA needs 4.5).

/** rgb: [r, g, b] in 0..255 -> relative luminance in [0, 1] */
export function relativeLuminance(rgb) {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio of two colours [r, g, b], from 1 to 21. */
export function contrastRatio(a, b) {
  const la = relativeLuminance(a), lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

const BLACK = [0, 0, 0], WHITE = [255, 255, 255];

/** The text colour ('#000' or '#fff') of higher contrast on the background rgb. */
export const readableOn = (rgb) => (contrastRatio(rgb, BLACK) >= contrastRatio(rgb, WHITE) ? '#000' : '#fff');
