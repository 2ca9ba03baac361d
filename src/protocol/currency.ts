/**
 * How yuan are written, for the payment card and the service's own sentences and pay page alike: Intl's
 * currency symbol (its default display), which tells yuan from yen in the reader's locale (`¥9.90` in Chinese,
 * `CN¥9.90` in English, where `¥` alone reads as yen).
 */
const CNY = { style: 'currency', currency: 'CNY' } as const;

/** The yuan format of `lang` (`cnyFormat('en').format(9.9)`: `CN¥9.90`); English's when `lang` is not a valid tag. */
export function cnyFormat(lang: string): Intl.NumberFormat {
  try {
    return new Intl.NumberFormat(lang, CNY);
  } catch {
    // An invalid language tag must not break what shows an amount.
    return new Intl.NumberFormat('en', CNY);
  }
}
