// Amounts are integers of the smallest unit (cents, or play chips counted like cents) everywhere; only here do they
// become text, in the page's language, the way cashier/templatetags/money.py writes them on the server.

const numberFormats = new Map();

function pageLang() {
  return (typeof document !== "undefined" && document.documentElement.lang) || undefined;
}

function numberFormat(lang) {
  const key = lang || "";
  if (!numberFormats.has(key)) {
    let nf;
    try {
      nf = new Intl.NumberFormat(lang || undefined, { minimumFractionDigits: 2 });
    } catch (e) {
      nf = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2 });
    }
    numberFormats.set(key, nf);
  }
  return numberFormats.get(key);
}

let chipsTemplate = "{amount} chips";

/** Set the translated "{amount} chips" pattern once (from the page's i18n block). */
export function setChipsTemplate(template) {
  if (template && template.includes("{amount}")) chipsTemplate = template;
}

/** 1234 -> "12.34" (or "12,34" in Italian). */
export function formatNumber(amount, lang = pageLang()) {
  return numberFormat(lang).format(Number(amount || 0) / 100);
}

/** Tournament chips are whole counts, not hundredths: 1500 -> "1,500" (or "1.500" in Italian). */
export function formatCount(amount, lang = pageLang()) {
  try {
    return new Intl.NumberFormat(lang || undefined, { maximumFractionDigits: 0 }).format(Number(amount || 0));
  } catch (e) {
    return String(Math.round(Number(amount || 0)));
  }
}

/** A typed whole number of tournament chips ("1,500", "1.500", "1500"), or null. */
export function parseCount(text) {
  if (text === null || text === undefined) return null;
  const s = String(text).replace(/[\s\u00a0\u202f.,']/g, "");
  return /^[0-9]+$/.test(s) ? Number(s) : null;
}

/** The full amount with its unit: "€ 12.34" or "12.34 chips" ("tournament": "1,500 chips"). */
export function formatMoney(amount, currency, lang = pageLang()) {
  if (currency === "tournament") return chipsTemplate.replace("{amount}", formatCount(amount, lang));
  const value = formatNumber(amount, lang);
  if (currency === "eur") return "€\u00a0" + value;
  return chipsTemplate.replace("{amount}", value);
}

/** A compact amount for places where the unit is obvious (stacks and bets on a table): "€12.34" or "12.34". */
export function formatShort(amount, currency, lang = pageLang()) {
  if (currency === "tournament") return formatCount(amount, lang);
  const value = formatNumber(amount, lang);
  return currency === "eur" ? "€" + value : value;
}

/** The decimal separator of the page's language. */
export function decimalSeparator(lang = pageLang()) {
  const part = numberFormat(lang).formatToParts(1.5).find((p) => p.type === "decimal");
  return part ? part.value : ".";
}

/**
 * Read an amount typed by a player ("12.5", "12,50", "1.234,50", "€ 3") into the smallest unit, or null.
 * A lone separator followed by at most two digits is a decimal point whatever the language.
 */
export function parseAmount(text, lang = pageLang()) {
  if (text === null || text === undefined) return null;
  let s = String(text).replace(/[\s\u00a0\u202f€]/g, "").replace(/[a-z]+$/i, "");
  if (!s || !/^[0-9.,']+$/.test(s)) return null;
  s = s.replace(/'/g, "");
  const dec = decimalSeparator(lang);
  const lastDot = s.lastIndexOf(".");
  const lastComma = s.lastIndexOf(",");
  let decimalAt = -1;
  if (lastDot >= 0 && lastComma >= 0) {
    decimalAt = Math.max(lastDot, lastComma);
  } else if (lastDot >= 0 || lastComma >= 0) {
    const at = Math.max(lastDot, lastComma);
    const sep = s[at];
    const single = s.indexOf(sep) === at;
    if (sep === dec || (single && s.length - at - 1 <= 2)) decimalAt = at;
  }
  let whole = s;
  let frac = "";
  if (decimalAt >= 0) {
    whole = s.slice(0, decimalAt);
    frac = s.slice(decimalAt + 1);
  }
  // Separators left in the whole part group thousands: "1.000" is a thousand, "0.500" or "1.00.0" nothing.
  if (/[.,]/.test(whole) && !/^[1-9]\d{0,2}([.,]\d{3})*$/.test(whole)) return null;
  whole = whole.replace(/[.,]/g, "");
  if (/[.,]/.test(frac) || frac.length > 2) return null;
  if (!whole && !frac) return null;
  return Number(whole || "0") * 100 + Number((frac + "00").slice(0, 2));
}

/** Round down to a multiple of the table's smallest chip. */
export function roundDownToChip(amount, chip) {
  const step = Math.max(1, Number(chip) || 1);
  return Math.floor(amount / step) * step;
}

export function clamp(value, min, max) {
  return Math.min(max, Math.max(min, value));
}
