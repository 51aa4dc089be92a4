// The deck check in the browser (templates/history/verify.html): the hand's JSON (/api/hands/<id>/, with the
// openings this visitor may see) is loaded into an editable box, and every opening is recomputed with Web Crypto's
// SHA-256 — its leaf, then its Merkle path to the root — and compared with the commitment published before the first
// card. The page says "verified" or exactly what fails. The same check as static/verify_hand.py (and the scheme of
// tables/engine/fairness.py): leaf = SHA-256(0x00 ‖ position byte ‖ card ASCII ‖ 32-byte salt), node =
// SHA-256(0x01 ‖ left ‖ right), a level of odd width carries its last node up unchanged; 52 leaves.
//
// Test hooks: #hand-json, #verify-button, #verify-result[data-state=verified|failed], #verify-lines li[data-position].

const DECK_SIZE = 52;
const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const HEX64 = /^[0-9a-fA-F]{64}$/;

const FALLBACK = {
  verified: "Verified: these {n} cards were in the deck committed to before the first card.",
  failed: "Not verified: see what fails below.",
  opening_ok: "position {position}: {card} verified",
  opening_failed: "position {position}: {card} FAILED: {reason}",
  bad_json: "This is not JSON: {error}",
  no_commitment: "No deck commitment (64 hexadecimal digits) in the JSON.",
  no_openings: "No openings in the JSON: nothing to check.",
  bad_position: "the position is not a number from 0 to 51",
  bad_card: "this is not a card",
  bad_salt: "the salt is not 64 hexadecimal digits",
  bad_proof: "the proof is not a list of 64-digit hexadecimal digests",
  short_proof: "the proof is too short for this position's path",
  long_proof: "the proof is too long for this position's path",
  wrong_root: "the card, its salt and the proof lead to {root}, not to the commitment",
  unproven: "Cards the hand shows but no opening proves: {cards}",
  checking: "Checking…",
  loading_failed: "The hand's JSON could not be loaded.",
};

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(...parts) {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const joined = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
}

/** null when the opening leads to `root`; else the key of what fails (and the root it led to). */
export async function checkOpening(root, opening) {
  const { position, card, salt, proof } = opening || {};
  if (!Number.isInteger(position) || position < 0 || position >= DECK_SIZE) return { reason: "bad_position" };
  if (typeof card !== "string" || card.length !== 2 || !RANKS.includes(card[0]) || !SUITS.includes(card[1])) return { reason: "bad_card" };
  if (typeof salt !== "string" || !HEX64.test(salt)) return { reason: "bad_salt" };
  if (!Array.isArray(proof) || !proof.every((p) => typeof p === "string" && HEX64.test(p))) return { reason: "bad_proof" };
  let node = await sha256(new Uint8Array([0, position]), new TextEncoder().encode(card), hexToBytes(salt));
  let index = position;
  let width = DECK_SIZE;
  let used = 0;
  while (width > 1) {
    if (!(index === width - 1 && width % 2 === 1)) { // else the node is carried up unchanged
      if (used === proof.length) return { reason: "short_proof" };
      const sibling = hexToBytes(proof[used++]);
      node = index % 2 === 0 ? await sha256(new Uint8Array([1]), node, sibling) : await sha256(new Uint8Array([1]), sibling, node);
    }
    index = Math.floor(index / 2);
    width = Math.ceil(width / 2);
  }
  if (used !== proof.length) return { reason: "long_proof" };
  const reached = bytesToHex(node);
  return reached === root.toLowerCase() ? null : { reason: "wrong_root", root: reached };
}

/** Check a hand's JSON: {ok, lines: [{position, card, ok, text}], message}. */
export async function verifyHand(data, t) {
  const root = data && (data.deck_commitment || (data.hand && data.hand.deck_commitment));
  if (typeof root !== "string" || !HEX64.test(root)) return { ok: false, lines: [], message: t("no_commitment") };
  const openings = data.openings;
  if (!Array.isArray(openings) || !openings.length) return { ok: false, lines: [], message: t("no_openings") };
  const lines = [];
  const proven = new Set();
  let ok = true;
  for (const opening of openings) {
    const failure = await checkOpening(root, opening);
    const position = opening && opening.position;
    const card = opening && opening.card;
    if (failure) {
      ok = false;
      lines.push({ position, card, ok: false, text: t("opening_failed", { position, card, reason: t(failure.reason, { root: failure.root }) }) });
    } else {
      proven.add(card);
      lines.push({ position, card, ok: true, text: t("opening_ok", { position, card }) });
    }
  }
  // Every board (both, when the board was run twice), and the hands shown.
  const shown = [...new Set([...(data.board || []), ...(data.boards || []).flat(), ...Object.values(data.shown || {}).flat()])];
  const missing = shown.filter((card) => !proven.has(card));
  if (missing.length) {
    ok = false;
    lines.push({ ok: false, text: t("unproven", { cards: missing.join(" ") }) });
  }
  return { ok, lines, message: ok ? t("verified", { n: proven.size }) : t("failed") };
}

class VerifyPage {
  constructor(root, strings) {
    this.root = root;
    this.strings = { ...FALLBACK, ...strings };
    this.input = document.getElementById("hand-json");
    this.result = document.getElementById("verify-result");
    this.list = document.getElementById("verify-lines");
    document.getElementById("verify-button").addEventListener("click", () => this.run());
  }

  t(key, params = {}) {
    let s = this.strings[key] ?? key;
    for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
    return s;
  }

  async load(url) {
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(String(response.status));
      this.input.value = JSON.stringify(await response.json(), null, 2);
      await this.run();
    } catch (e) {
      this.show(false, this.t("loading_failed"), []);
    }
  }

  async run() {
    this.show(null, this.t("checking"), []);
    let data;
    try {
      data = JSON.parse(this.input.value);
    } catch (e) {
      this.show(false, this.t("bad_json", { error: e.message }), []);
      return;
    }
    const outcome = await verifyHand(data, (k, p) => this.t(k, p));
    this.show(outcome.ok, outcome.message, outcome.lines);
  }

  show(ok, message, lines) {
    this.result.textContent = message;
    this.result.dataset.state = ok === null ? "checking" : ok ? "verified" : "failed";
    this.list.replaceChildren(...lines.map((line) => {
      const li = document.createElement("li");
      li.textContent = line.text;
      li.className = line.ok ? "ok" : "failed";
      if (Number.isInteger(line.position)) li.dataset.position = String(line.position);
      return li;
    }));
  }
}

function start() {
  const root = document.getElementById("verify-app");
  if (!root) return;
  let strings = {};
  try {
    strings = JSON.parse(document.getElementById("i18n").textContent);
  } catch (e) { /* English it is */ }
  const page = new VerifyPage(root, strings);
  window.verifyPage = page;
  if (root.dataset.url) page.load(root.dataset.url);
}

if (typeof document !== "undefined") start();
