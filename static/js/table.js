// The table page: one client of the table protocol (docs/protocol.md, PROTOCOL.md). It renders every `state` the
// server sends as a whole, uses `event`s only for the logs (chat, dealer lines, last hands), shows `error`s as a
// toast and changes nothing else. No build step: a plain ES module, loaded by templates/tables/table.html.
//
// The page gives it (see the template):
//   #table-app            data-ws-path, data-user-name, data-authenticated ("true"/"false"), data-login-url
//   #table-data           json_script of the table dict as in /api/tables/
//   #i18n                 json_script of the translated strings (keys as in FALLBACK below)
// A test harness may set window.PokerWebSocket to a fake WebSocket class before this module runs.

import { describeShown } from "./hands.js";
import {
  clamp, formatCount, formatMoney, formatNumber, formatShort, parseAmount, parseCount, roundDownToChip, setChipsTemplate,
} from "./money.js";

// English fallbacks only: the page passes the translated strings.
const FALLBACK = {
  t_level: "Level {n}",
  t_ante: "ante {ante}",
  t_next_level: "next level in {time}",
  t_left: "{left} of {entrants} left",
  t_average: "average stack {amount}",
  t_place: "your place: {place} of {left}",
  t_hand_for_hand: "Hand-for-hand",
  t_moved: "{name} moves to table {n}",
  t_finished: "{name} finishes in place {place}",
  t_finished_prize: "{name} finishes in place {place} and wins {prize}",
  t_you_moved: "The tournament moves you to another table…",
  t_you_finished: "You finished in place {place}.",
  t_out_provisional: "{name} is out: place {place} for now (final when late registration closes)",
  t_you_out_provisional: "You are out in place {place} for now: your place is provisional until late registration closes, and then it is final.",
  t_you_finished_prize: "You finished in place {place} and won {prize}.",
  t_see_standings: "See the standings",
  t_over: "The tournament is over.",
  t_your_table: "Go to your table",
  t_watching: "You are watching a tournament table.",
  fold: "Fold", check: "Check", call: "Call {amount}", bet: "Bet {amount}", raise: "Raise to {amount}",
  all_in: "All-in {amount}", show: "Show", muck: "Muck",
  preset_min: "Min", preset_half: "½ pot", preset_three_quarters: "¾ pot", preset_pot: "Pot", preset_all_in: "All-in",
  amount: "Amount", check_fold: "Check/Fold", call_any: "Call any", pre_actions: "Pre-select your action",
  sit_here: "Sit here", seat_n: "Seat {n}", open_seat: "Open",
  status_waiting_bb: "Waiting for BB", status_sitting_out: "Sitting out", status_folded: "Folded", status_all_in: "All-in",
  status_sitting_out_next: "Sits out next hand", status_leaving: "Leaving",
  bot: "BOT", bot_title: "House bot", dealer_button: "Dealer button", you: "You",
  hand_number: "Hand #{number}", deck_commitment: "Deck commitment",
  deck_commitment_help: "Root of the Merkle tree of salted SHA-256 digests of the shuffled deck, published before the first card was dealt.",
  copy: "Copy", copied: "Copied",
  main_pot: "Main pot", side_pot: "Side pot {n}", rake: "rake {amount}", gross: "gross {amount}", total_pot: "Pot {amount}",
  buy_in_title: "Take seat {seat}", buy_in_range: "From {min} to {max}", buy_in_amount: "Buy-in",
  wait_bb: "Wait for the big blind", post_now: "Post the big blind now", confirm: "Confirm", cancel: "Cancel",
  sit_out: "Sit out", sit_in: "Sit in", auto_muck: "Auto-muck", straddle: "Straddle", top_up: "Top up",
  top_up_title: "Top up your stack", top_up_range: "Up to {max}", top_up_between_hands: "Top-ups are made between hands.",
  leave: "Leave table",
  chat: "Chat", chat_placeholder: "Say something…", chat_send: "Send", chat_login: "Log in to chat", chat_sit: "Take a seat to chat",
  last_hands: "Last hands", no_hands_yet: "No hand played yet.", hand_won: "{name} won {amount}",
  login_to_play: "Log in to play", watching: "You are watching this table.", choose_seat: "Choose an empty seat to play.",
  connecting: "Connecting…", connected: "Connected", reconnecting: "Reconnecting…", table_closed: "This table is closed.",
  not_connected: "Not connected: try again in a moment.",
  your_turn: "Your turn", time_bank: "Time bank", seconds: "{n}s",
  waiting_join: "Join the waiting list ({n} waiting)",
  waiting_full: "The table is full.",
  waiting_position: "On the waiting list: {position} of {count}.",
  waiting_leave: "Leave the list",
  waiting_offer: "Seat {seat} is yours for {n} s.",
  waiting_take: "Take seat {seat}",
  seat_offer_elsewhere: "A seat is free for you at {table}: open it within {n} s.",
  removed_sat_out: "{name} sat out too long and left the table",
  removed_busted: "{name} did not buy back and left the table",
  removed_staff: "{name} was removed by the staff",
  removed_make_room: "{name} made room for a player",
  removed_closed: "{name} left: the staff closed the table",
  staff_says: "Staff: {text}", seat_reserved: "Reserved", hand_cancelled_short: "Cancelled: every bet returned",
  kept_until_sit_in: "Sit in by {time} to keep your seat.", kept_until_rebuy: "Buy back by {time} to keep your seat.",
  table_paused: "The table is paused: no new hand until it resumes.",
  table_resumed: "The table deals again.",
  hand_cancelled: "Hand #{number} was cancelled: every bet went back.",
  shortcuts: "Shortcuts", shortcut_fold: "F: fold", shortcut_call: "C: check / call", shortcut_raise: "R: bet / raise",
  shortcut_enter: "Enter: confirm",
  acted_fold: "{name} folds", acted_check: "{name} checks", acted_call: "{name} calls {amount}",
  acted_bet: "{name} bets {amount}", acted_raise: "{name} raises to {amount}", acted_all_in: "{name} is all-in {amount}",
  acted_show: "{name} shows {cards}", acted_muck: "{name} mucks", dealer: "Dealer",
  posted: "{name} posts {amount}", returned: "Uncalled {amount} returned to {name}",
  last_fold: "Fold", last_check: "Check", last_call: "Call", last_bet: "Bet", last_raise: "Raise", last_all_in: "All-in",
  street_preflop: "Pre-flop", street_flop: "Flop", street_turn: "Turn", street_river: "River", street_showdown: "Showdown",
  new_hand: "Hand #{number}", shows: "{name} shows {cards}", wins: "{name} wins {amount}",
  game_holdem: "Hold'em", game_omaha: "Omaha", game_omaha_hilo: "Omaha Hi-Lo",
  structure_nl: "No-Limit", structure_pl: "Pot-Limit", structure_fl: "Fixed-Limit",
  max_seats: "{n}-max", heads_up: "Heads-up", blinds: "Blinds {sb}/{bb}", chips: "{amount} chips", lobby: "Lobby",
  time_bank_left: "Time bank {n}s",
  wallet: "Your wallet: {amount}", buy_in_below_min: "The minimum buy-in is {amount}.",
  buy_in_above_max: "The maximum buy-in is {amount}.", over_wallet: "Your wallet holds only {amount}.",
  not_an_amount: "Type an amount, like {example}.",
  wallet_short: "Your wallet holds {wallet}, less than the minimum buy-in of {min}.", to_cashier: "Go to the cashier",
  buy_in_rejoin: "You left this table less than 30 minutes ago with {amount}: you must bring at least as much back.",
  top_up_above: "You can add at most {amount}.", top_up_below: "Add at least {amount}.",
  top_up_short: "Your wallet holds {wallet}: not enough to add {min}.",
  rebuy: "Rebuy", rebuy_title: "You are out of chips", rebuy_help: "Add chips from your wallet to play on.",
  status_busted: "Out of chips",
  leave_confirm_title: "Leave the table?",
  leave_confirm_text: "You are in this hand: it is played out, then your stack goes back to your wallet.",
  leave_after_hand: "Leave after this hand", stay: "Stay",
  fold_confirm_title: "Fold when you can check?", fold_confirm_text: "Checking costs nothing: you stay in the hand.",
  fold_anyway: "Fold anyway",
  hand_high_card: "high card, {one}", hand_pair: "a pair of {many}", hand_two_pair: "two pair, {many} and {many2}",
  hand_trips: "three of a kind, {many}", hand_straight: "straight, {high}", hand_flush: "flush, {high}",
  hand_full_house: "full house, {many} full of {many2}", hand_quads: "four of a kind, {many}",
  hand_straight_flush: "straight flush, {high}", hand_royal_flush: "royal flush", hand_low: "{cards} low",
  ...rankNames(),
  hand_verify: "Verify the deck", hand_replay: "Replay",
  run_twice: "Run it twice", run_twice_help: "When everyone all in has it on, the rest of the board is dealt twice and each pot is halved.",
  run_n: "Run {n}", run_won: "Run {n}: {name} won {amount}", status_disconnected: "Disconnected",
  time_bank_refill: "Time bank: +{refill}s every {hands} hands, up to {max}s.",
  bomb_pot: "Bomb pot", bomb_pot_next: "Bomb pot next hand", bomb_pot_in: "Bomb pot in {n} hands",
  bomb_pot_every_one: "Bomb pot every hand, ante {ante} BB", bomb_pot_every: "Bomb pot every {n} hands, ante {ante} BB",
  bomb_pot_help: "Every player posts the ante and the hand starts on the flop, without blinds.",
  hi_lo_high_to: "High: {amount} to {names}", hi_lo_low_to: "Low: {amount} to {names}",
  hi_lo_no_low: "No low: the high half takes all",
};

/** English names of the ranks: rank_one_J "jack", rank_many_J "jacks", rank_high_J "jack high". */
function rankNames() {
  const names = { 2: "deuce", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", T: "ten",
    J: "jack", Q: "queen", K: "king", A: "ace" };
  const out = {};
  for (const [rank, name] of Object.entries(names)) {
    out[`rank_one_${rank}`] = name;
    out[`rank_many_${rank}`] = rank === "6" ? "sixes" : `${name}s`;
    out[`rank_high_${rank}`] = `${name} high`;
  }
  return out;
}

const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
const RAISE_ACTIONS = ["bet", "raise"];
const PRESETS = [["min", null], ["half", 0.5], ["three_quarters", 0.75], ["pot", 1], ["all_in", null]];

// ---------------------------------------------------------------------------------------------------------------
// Pure helpers (exported so that a harness or a test can check them).

/** Hole cards a player holds in this game. */
export function holeCardCount(game) {
  return game === "omaha" || game === "omaha_hilo" ? 4 : 2;
}

/**
 * Points for `n` seats spread at equal distances along an ellipse of aspect `aspect` (width / height), the first
 * at the bottom centre and the next ones clockwise as seen on the screen (to the first player's left).
 * Returns unit vectors [{x, y}] (x, y in -1..1).
 */
export function seatPoints(n, aspect = 2) {
  const a = aspect >= 1 ? 1 : aspect;
  const b = aspect >= 1 ? 1 / aspect : 1;
  const steps = 720;
  const lengths = [0];
  let prev = { x: 0, y: 1 };
  for (let i = 1; i <= steps; i++) {
    const t = Math.PI / 2 + (i / steps) * 2 * Math.PI;
    const p = { x: Math.cos(t), y: Math.sin(t) };
    lengths.push(lengths[i - 1] + Math.hypot((p.x - prev.x) * a, (p.y - prev.y) * b));
    prev = p;
  }
  const total = lengths[steps];
  const points = [];
  let j = 0;
  for (let k = 0; k < n; k++) {
    const target = (k / n) * total;
    while (j < steps && lengths[j + 1] < target) j++;
    const span = lengths[j + 1] - lengths[j] || 1;
    const t = Math.PI / 2 + ((j + (target - lengths[j]) / span) / steps) * 2 * Math.PI;
    points.push({ x: Math.cos(t), y: Math.sin(t) });
  }
  return points;
}

/** How far from a box's centre, along the unit direction `d`, its edge is (`half`: half its width and height). */
export function exitDistance(d, half) {
  const x = Math.abs(d.x) > 1e-6 ? half.w / Math.abs(d.x) : Infinity;
  const y = Math.abs(d.y) > 1e-6 ? half.h / Math.abs(d.y) : Infinity;
  return Math.min(x, y);
}

function overlaps(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/**
 * Where to put a box of half-size `size` centred at `at` so that it overlaps none of `keepOut` (rectangles in
 * the same coordinates): where it is if it fits, else moved out on the side nearest `home` (its seat), never
 * onto `own` (the seat's box).
 */
export function clearOf(at, size, keepOut, own, home = at) {
  const rect = (p) => ({ left: p.x - size.w, right: p.x + size.w, top: p.y - size.h, bottom: p.y + size.h });
  const hit = keepOut.find((r) => overlaps(rect(at), r));
  if (!hit) return at;
  const gap = 3;
  const moves = [
    { x: hit.left - size.w - gap, y: at.y }, { x: hit.right + size.w + gap, y: at.y },
    { x: at.x, y: hit.top - size.h - gap }, { x: at.x, y: hit.bottom + size.h + gap },
  ].filter((p) => !overlaps(rect(p), own) && !keepOut.some((r) => overlaps(rect(p), r)));
  if (!moves.length) return at;
  moves.sort((a, b) => Math.hypot(a.x - home.x, a.y - home.y) - Math.hypot(b.x - home.x, b.y - home.y));
  return moves[0];
}

/** The gross pot: every pot's gross amount plus every bet on the table. */
export function grossPot(state) {
  const pots = (state.pots || []).reduce((sum, p) => sum + (p.amount || 0), 0);
  const bets = (state.seats || []).reduce((sum, s) => sum + (s.bet || 0), 0);
  return pots + bets;
}

export function highestBet(state) {
  return (state.seats || []).reduce((m, s) => Math.max(m, s.bet || 0), 0);
}

/** What calling costs `seat` (capped by its stack). */
export function callCost(state, seat) {
  if (!seat) return 0;
  return Math.max(0, Math.min(highestBet(state) - (seat.bet || 0), seat.stack || 0));
}

/** Keep a bet/raise "to" amount legal: rounded down to the chip, within [min, max] (max may be an odd all-in). */
export function clampToLegal(amount, entry, chip) {
  if (!Number.isFinite(amount)) return entry.min;
  if (amount >= entry.max) return entry.max;
  return clamp(roundDownToChip(amount, chip), entry.min, entry.max);
}

/**
 * The preset "to" amounts for a bet or raise, on the gross pot. A pot-sized raise is the call plus the pot after
 * the call: to = highest bet + (gross pot + call); fractions take that share of (gross pot + call).
 */
export function presetAmounts(state, seat, entry, chip) {
  const pot = grossPot(state);
  const call = callCost(state, seat);
  const top = highestBet(state);
  const out = {};
  for (const [name, share] of PRESETS) {
    let value;
    if (name === "min") value = entry.min;
    else if (name === "all_in") value = entry.max;
    else value = top + share * (pot + call);
    out[name] = clampToLegal(Math.floor(value), entry, chip);
  }
  return out;
}

export function cardText(card) {
  if (!card || card.length < 2) return "";
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + (SUITS[card[1]] || card[1]);
}

// ---------------------------------------------------------------------------------------------------------------
// Small DOM helpers.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k === "style") el.style.cssText = v;
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k in el && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const ICONS = {
  lock: '<rect x="5" y="11" width="14" height="10" rx="2"/><path d="M8 11V7a4 4 0 0 1 8 0v4"/>',
  clock: '<circle cx="12" cy="13" r="8"/><path d="M12 9v4l2.5 2.5M10 2h4"/>',
  keyboard: '<rect x="2" y="6" width="20" height="12" rx="2"/><path d="M6 10h.01M10 10h.01M14 10h.01M18 10h.01M7 14h10"/>',
};

function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `icon icon-${name}`);
  svg.setAttribute("aria-hidden", "true");
  svg.innerHTML = ICONS[name];
  return svg;
}

function readJSON(id, fallback) {
  const el = document.getElementById(id);
  if (!el) return fallback;
  try {
    return JSON.parse(el.textContent);
  } catch (e) {
    return fallback;
  }
}

export function cardEl(card, extra = "") {
  // "card" too: tests and other clients look for `.card`; table.css keeps room.css's `.card` panel style off these.
  if (!card) return h("span", { class: `pcard card back ${extra}`, "aria-hidden": "true" });
  const suit = card[1];
  const red = suit === "h" || suit === "d";
  return h("span", { class: `pcard card face suit-${suit}${red ? " red" : ""} ${extra}`, "data-card": card, "aria-label": cardText(card) },
    h("span", { class: "rank", text: card[0] === "T" ? "10" : card[0] }),
    h("span", { class: "suit", text: SUITS[suit] || suit }));
}

/** Winners as the engine sends them ({"<seat>": amount}) or as a list of {seat, name, amount}. */
export function winnerList(winners) {
  if (Array.isArray(winners)) return winners;
  if (winners && typeof winners === "object") {
    return Object.entries(winners).map(([seat, amount]) => ({ seat: Number(seat), amount: Number(amount) || 0 }));
  }
  return [];
}

function isTypingTarget(el) {
  if (!el) return false;
  const tag = el.tagName;
  return tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable ||
    (tag === "INPUT" && !["checkbox", "radio", "button", "submit", "range"].includes(el.type));
}

// ---------------------------------------------------------------------------------------------------------------

export class TablePage {
  constructor(root, { table, wsPath, userName, authenticated, loginUrl, moneyUrl, cashierUrl, strings, WebSocketImpl }) {
    this.root = root;
    this.table = table || {};
    this.wsPath = wsPath;
    this.userName = userName || "";
    this.authenticated = !!authenticated;
    this.loginUrl = loginUrl || "/accounts/login/?next=" + encodeURIComponent(location.pathname);
    this.moneyUrl = moneyUrl || "";
    this.cashierUrl = cashierUrl || "/cashier/";
    this.strings = { ...FALLBACK, ...(strings || {}) };
    this.WebSocketImpl = WebSocketImpl || window.WebSocket;
    setChipsTemplate(this.strings.chips);

    this.state = null;
    this.lastSeq = null;
    this.syncPendingSince = 0;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.everConnected = false;
    this.clockSamples = [];
    this.timer = null; // {key, deadline, total, bank, bankTotal}
    this.decisionKey = null;
    this.actPending = false;
    this.amount = 0;
    this.lastActions = new Map();
    this.awards = [];
    this.finished = null; // the last hand's end, kept on the felt until the next deal: see finishHand
    this.handSeats = null; // the seats as the last state of the running hand showed them
    this.history = [];
    this.handKey = null;
    this.lastHand = null; // the last hand seen, for the history and the board left on the table between hands
    this.waiting = null; // this player's place on this table's waiting list (the server's `waiting` message)
    this.streetKey = null;
    this.preAppliedFor = null;
    this.options = { auto_muck: true, straddle: false, run_twice: false };
    this.baseTitle = document.title;

    this.build();
    this.bindKeys();
    this.connect();
    this.loadLastHands();
    this.tickHandle = setInterval(() => this.tick(), 200);
    this.phoneQuery = window.matchMedia("(max-width: 420px)");
    this.phoneQuery.addEventListener?.("change", () => this.renderSeats());
  }

  t(key, params = {}) {
    let s = this.strings[key] ?? FALLBACK[key] ?? key;
    for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
    return s;
  }

  money(amount) { return formatMoney(amount, this.currency()); }
  short(amount) { return formatShort(amount, this.currency()); }
  currency() { return this.isTournament() ? "tournament" : this.currentTable().currency; }
  /** A tournament table: its chips are whole counts, the tournament seats and moves its players. */
  isTournament() { return this.currentTable().kind === "tournament"; }
  /** An amount as the amount box shows it, and a typed amount read back (money: hundredths; tournament chips: whole). */
  amountText(amount) { return this.isTournament() ? formatCount(amount) : formatNumber(amount); }
  amountRead(text) { return this.isTournament() ? parseCount(text) : parseAmount(text); }
  chip() { return Math.max(1, Number(this.currentTable().chip) || 1); }
  currentTable() { return (this.state && this.state.table) || this.table; }

  // ----- the page's skeleton, built once ------------------------------------------------------------------------
  build() {
    const t = (k, p) => this.t(k, p);
    this.el = {};
    const E = this.el;
    E.title = h("h1", { class: "table-name" });
    E.meta = h("span", { class: "table-meta" });
    E.bombPotNext = h("span", { id: "bomb-pot-next", class: "bomb-pot-next", hidden: true });
    E.handNumber = h("span", { id: "hand-number", class: "hand-number" });
    E.street = h("span", { id: "street", class: "street" });
    E.commitmentText = h("code", { id: "deck-commitment-value" });
    E.commitmentPopover = h("div", { id: "deck-commitment-popover", class: "popover", hidden: true, role: "dialog" },
      h("strong", { text: t("deck_commitment") }),
      h("p", { class: "help", text: t("deck_commitment_help") }),
      E.commitmentText,
      h("button", { type: "button", class: "small", text: t("copy"), onclick: (ev) => this.copyCommitment(ev.currentTarget) }));
    E.commitment = h("button", {
      type: "button", id: "deck-commitment", class: "commitment", hidden: true, "aria-expanded": "false",
      onclick: () => this.toggleCommitment(),
    }, icon("lock"), " ", t("deck_commitment"));
    E.status = h("span", { id: "connection-status", class: "connection", "data-state": "connecting", role: "status", text: t("connecting") });
    E.shortcutsHelp = h("span", { class: "shortcuts", id: "shortcuts", tabindex: "0",
      "aria-label": [t("shortcut_fold"), t("shortcut_call"), t("shortcut_raise"), t("shortcut_enter")].join(", ") },
    icon("keyboard"), " ", t("shortcuts"),
    h("span", { class: "shortcuts-tip", role: "tooltip" },
      ...[["F", "shortcut_fold"], ["C", "shortcut_call"], ["R", "shortcut_raise"], ["Enter", "shortcut_enter"]]
        .map(([key, label]) => h("span", {}, h("kbd", { text: key }), " ", t(label).replace(/^[^:]*:\s*/, "")))));

    E.tournamentBar = h("div", { id: "tournament-bar", class: "tournament-bar", hidden: true, "aria-live": "polite" });
    E.tournamentResult = h("div", { id: "tournament-result", class: "tournament-result", hidden: true, role: "status" });
    const head = h("div", { class: "table-head" },
      h("div", { class: "table-title" }, E.title, E.meta, E.bombPotNext, E.tournamentBar, E.tournamentResult),
      h("div", { class: "table-info" }, E.handNumber, E.street, h("span", { class: "commitment-wrap" }, E.commitment, E.commitmentPopover), E.shortcutsHelp, E.status));

    E.pots = h("div", { id: "pots", class: "pots", "aria-live": "polite" });
    E.board = h("div", { id: "board", class: "board" });
    // A board run twice: the second run's board under the first (hidden otherwise).
    E.board2 = h("div", { id: "board-2", class: "board second-run", hidden: true });
    E.boards = h("div", { class: "boards" }, E.board, E.board2);
    E.totalPot = h("div", { id: "total-pot", class: "total-pot" });
    E.bombPot = h("div", { id: "bomb-pot", class: "bomb-pot", hidden: true, title: t("bomb_pot_help") });
    E.seats = h("div", { class: "seats" });
    E.felt = h("div", { class: "felt-wrap", id: "felt" },
      h("div", { class: "felt" }, h("div", { class: "felt-logo", "aria-hidden": "true", text: "♠ ♥ ♣ ♦" })),
      h("div", { class: "felt-center" }, E.boards, h("div", { class: "pot-area" }, E.bombPot, E.totalPot, E.pots)),
      E.seats);

    // Action bar (rebuilt for every decision), pre-actions and the spectator's line.
    E.actionBar = h("div", { id: "action-bar", class: "action-bar", hidden: true, role: "group", "aria-label": t("your_turn") });
    E.preCheckFold = h("input", { type: "checkbox", id: "pre-check-fold", onchange: () => this.onPreAction("check_fold") });
    E.preCallAny = h("input", { type: "checkbox", id: "pre-call-any", onchange: () => this.onPreAction("call_any") });
    E.preActions = h("div", { id: "pre-actions", class: "pre-actions", hidden: true, role: "group", "aria-label": t("pre_actions") },
      h("label", { class: "pre-action" }, E.preCheckFold, " ", t("check_fold")),
      h("label", { class: "pre-action" }, E.preCallAny, " ", t("call_any")));
    E.spectator = h("div", { id: "spectator-bar", class: "spectator-bar", hidden: true });
    E.seatControls = this.buildSeatControls();
    // The felt takes what the window leaves once the head and the bottom row are placed (table.css).
    const stage = h("div", { class: "table-stage" }, h("div", { class: "felt-area" }, E.felt),
      h("div", { class: "table-bottom" }, E.seatControls,
        h("div", { class: "action-dock" }, E.actionBar, E.preActions, E.spectator)));

    // Side: chat and the last hands.
    E.chatLog = h("div", { id: "chat-log", class: "chat-log", role: "log", "aria-live": "polite" });
    E.chatInput = h("input", { type: "text", id: "chat-input", maxlength: "200", autocomplete: "off",
      placeholder: this.authenticated ? t("chat_placeholder") : t("chat_login"), disabled: !this.authenticated,
      "aria-label": t("chat") });
    E.chatForm = h("form", { id: "chat-form", class: "chat-form", onsubmit: (ev) => { ev.preventDefault(); this.sendChat(); } },
      E.chatInput, h("button", { type: "submit", class: "small", text: t("chat_send"), disabled: !this.authenticated }));
    E.history = h("ol", { id: "hand-history", class: "hand-history" }, h("li", { class: "empty", text: t("no_hands_yet") }));
    const side = h("aside", { class: "table-side" },
      h("section", { class: "panel chat" }, h("h2", { text: t("chat") }), E.chatLog, E.chatForm),
      h("section", { class: "panel last-hands" }, h("h2", { text: t("last_hands") }), E.history));

    E.buyIn = this.buildBuyInDialog();
    E.topUp = this.buildTopUpDialog();
    E.confirm = this.buildConfirmDialog();
    E.toast = h("div", { id: "toast", class: "toast", role: "alert", "aria-live": "assertive", hidden: true });

    E.paused = h("div", { id: "table-paused", class: "table-paused", role: "status", hidden: true });
    this.root.replaceChildren(h("div", { class: "table-page" }, head, E.paused, h("div", { class: "table-layout" }, stage, side)),
      E.buyIn, E.topUp, E.confirm, E.toast);
    // What sits above the table changes height (the head fills in, the top bar wraps): measure again then.
    const refit = new ResizeObserver(() => this.fitToWindow());
    refit.observe(head);
    refit.observe(document.querySelector(".topbar") || head);
    new ResizeObserver(() => this.placeSeatExtras()).observe(E.felt);
    this.renderHead();
    this.renderSpectatorBar();
    document.addEventListener("click", (ev) => {
      if (!E.commitmentPopover.hidden && !ev.target.closest(".commitment-wrap")) this.toggleCommitment(false);
    });
  }

  // Stacked layouts (narrow windows, the side panels below the table): the table and its bottom row take the
  // window's height under the head, whatever the top bar's height; wide ones size by flex alone (table.css).
  fitToWindow() {
    const stage = this.root.querySelector(".table-stage");
    if (!stage) return;
    const top = stage.getBoundingClientRect().top + window.scrollY;
    this.root.style.setProperty("--stage-top", `${Math.round(top)}px`);
  }

  buildSeatControls() {
    const t = (k, p) => this.t(k, p);
    const E = this.el;
    E.sitOut = h("button", { type: "button", id: "sit-out", class: "button ghost", text: t("sit_out"), onclick: () => this.send({ type: "sit_out" }) });
    E.sitInPost = h("select", { id: "sit-in-post", "aria-label": t("sit_in") },
      h("option", { value: "wait_bb", text: t("wait_bb") }), h("option", { value: "now", text: t("post_now") }));
    E.sitIn = h("button", { type: "button", id: "sit-in", class: "button primary", text: t("sit_in"),
      onclick: () => this.send({ type: "sit_in", post: E.sitInPost.value }) });
    E.sitInGroup = h("span", { class: "sit-in-group", hidden: true }, E.sitIn, E.sitInPost);
    E.rebuy = h("button", { type: "button", id: "rebuy", class: "button primary", text: t("rebuy"), hidden: true,
      onclick: () => this.openTopUp({ rebuy: true }) });
    E.autoMuck = h("input", { type: "checkbox", id: "auto-muck", checked: true, onchange: () => this.sendOptions() });
    E.straddle = h("input", { type: "checkbox", id: "straddle", onchange: () => this.sendOptions() });
    E.straddleLabel = h("label", { class: "toggle", hidden: true }, E.straddle, " ", t("straddle"));
    E.runTwice = h("input", { type: "checkbox", id: "run-twice", onchange: () => this.sendOptions() });
    E.runTwiceLabel = h("label", { class: "toggle", title: t("run_twice_help") }, E.runTwice, " ", t("run_twice"));
    E.topUpButton = h("button", { type: "button", id: "top-up", class: "button ghost", text: t("top_up"), onclick: () => this.openTopUp() });
    E.leave = h("button", { type: "button", id: "leave", class: "button danger", text: t("leave"), onclick: () => this.leave() });
    E.myTimeBank = h("span", { id: "my-time-bank", class: "my-time-bank", title: t("time_bank") });
    E.keptUntil = h("span", { id: "kept-until", class: "kept-until", hidden: true });
    return h("div", { id: "seat-controls", class: "seat-controls", hidden: true },
      E.rebuy, E.sitOut, E.sitInGroup, E.topUpButton, E.leave,
      h("label", { class: "toggle" }, E.autoMuck, " ", t("auto_muck")), E.straddleLabel, E.runTwiceLabel, E.myTimeBank,
      E.keptUntil);
  }

  buildBuyInDialog() {
    const t = (k, p) => this.t(k, p);
    const E = this.el;
    E.buyInTitle = h("h2", {});
    E.buyInRange = h("p", { class: "range", id: "buy-in-range" });
    E.buyInRejoin = h("p", { class: "note", id: "buy-in-rejoin", hidden: true });
    E.buyInWallet = h("p", { class: "wallet", id: "buy-in-wallet" });
    E.buyInSlider = h("input", { type: "range", id: "buy-in-slider", "aria-label": t("buy_in_amount"),
      oninput: () => {
        E.buyInAmount.value = formatNumber(this.buyInFromSlider());
        this.showDialogError(E.buyInError, "");
      } });
    E.buyInAmount = h("input", { type: "text", id: "buy-in-amount", inputmode: "decimal", autocomplete: "off",
      "aria-describedby": "buy-in-error", oninput: () => this.showDialogError(E.buyInError, "") });
    E.buyInError = h("p", { class: "dialog-error", id: "buy-in-error", role: "alert", hidden: true });
    E.buyInWait = h("input", { type: "radio", name: "buy-in-post", id: "buy-in-wait-bb", value: "wait_bb", checked: true });
    E.buyInNow = h("input", { type: "radio", name: "buy-in-post", id: "buy-in-post-now", value: "now" });
    E.buyInUnit = h("span", { class: "unit" });
    E.buyInConfirm = h("button", { type: "submit", id: "buy-in-confirm", class: "button primary", text: t("confirm") });
    const form = h("form", { method: "dialog", onsubmit: (ev) => { ev.preventDefault(); this.confirmBuyIn(); } },
      E.buyInTitle, E.buyInRange, E.buyInRejoin, E.buyInWallet,
      h("div", { class: "amount-row" }, E.buyInSlider,
        h("label", { class: "amount-field" }, h("span", { class: "sr-only", text: t("buy_in_amount") }), E.buyInUnit, E.buyInAmount)),
      E.buyInError,
      h("fieldset", { class: "post-choice" },
        h("label", {}, E.buyInWait, " ", t("wait_bb")), h("label", {}, E.buyInNow, " ", t("post_now"))),
      h("div", { class: "dialog-buttons" },
        h("button", { type: "button", id: "buy-in-cancel", class: "button ghost", text: t("cancel"), onclick: () => E.buyIn.close() }),
        E.buyInConfirm));
    return h("dialog", { id: "buy-in-dialog", class: "room-dialog" }, form);
  }

  buildTopUpDialog() {
    const t = (k, p) => this.t(k, p);
    const E = this.el;
    E.topUpTitle = h("h2", { id: "top-up-title" });
    E.topUpRange = h("p", { class: "range", id: "top-up-range" });
    E.topUpWallet = h("p", { class: "wallet", id: "top-up-wallet" });
    E.topUpAmount = h("input", { type: "text", id: "top-up-amount", inputmode: "decimal", autocomplete: "off",
      "aria-describedby": "top-up-error", oninput: () => this.showDialogError(E.topUpError, "") });
    E.topUpUnit = h("span", { class: "unit" });
    E.topUpError = h("p", { class: "dialog-error", id: "top-up-error", role: "alert", hidden: true });
    E.topUpHelp = h("p", { class: "help" });
    E.topUpWait = h("input", { type: "radio", name: "top-up-post", id: "top-up-wait-bb", value: "wait_bb", checked: true });
    E.topUpNow = h("input", { type: "radio", name: "top-up-post", id: "top-up-post-now", value: "now" });
    E.topUpPost = h("fieldset", { class: "post-choice", hidden: true },
      h("label", {}, E.topUpWait, " ", t("wait_bb")), h("label", {}, E.topUpNow, " ", t("post_now")));
    E.topUpConfirm = h("button", { type: "submit", id: "top-up-confirm", class: "button primary", text: t("confirm") });
    const form = h("form", { method: "dialog", onsubmit: (ev) => { ev.preventDefault(); this.confirmTopUp(); } },
      E.topUpTitle, E.topUpRange, E.topUpWallet,
      h("label", { class: "amount-field" }, h("span", { class: "sr-only", text: t("top_up") }), E.topUpUnit, E.topUpAmount),
      E.topUpError, E.topUpHelp, E.topUpPost,
      h("div", { class: "dialog-buttons" },
        h("button", { type: "button", id: "top-up-cancel", class: "button ghost", text: t("cancel"), onclick: () => E.topUp.close() }),
        E.topUpConfirm));
    return h("dialog", { id: "top-up-dialog", class: "room-dialog", "aria-labelledby": "top-up-title" }, form);
  }

  buildConfirmDialog() {
    const E = this.el;
    E.confirmTitle = h("h2", { id: "confirm-title" });
    E.confirmText = h("p", { class: "help", id: "confirm-text" });
    E.confirmNo = h("button", { type: "button", id: "confirm-no", class: "button ghost" });
    E.confirmYes = h("button", { type: "button", id: "confirm-yes", class: "button primary" });
    const dialog = h("dialog", { id: "confirm-dialog", class: "room-dialog", "aria-labelledby": "confirm-title" },
      E.confirmTitle, E.confirmText, h("div", { class: "dialog-buttons" }, E.confirmNo, E.confirmYes));
    return dialog;
  }

  /** Ask before something a player may regret: resolves true (yes), false (no) or null (dismissed). */
  ask({ title, text, yes, no, danger = false }) {
    const E = this.el;
    if (this.pendingAsk) this.pendingAsk(null);
    E.confirmTitle.textContent = title;
    E.confirmText.textContent = text;
    E.confirmYes.textContent = yes;
    E.confirmNo.textContent = no;
    E.confirmYes.className = `button ${danger ? "danger" : "primary"}`;
    E.confirmNo.className = `button ${danger ? "primary" : "ghost"}`;
    return new Promise((resolve) => {
      const finish = (answer) => {
        this.pendingAsk = null;
        E.confirmYes.onclick = E.confirmNo.onclick = E.confirm.onclose = null;
        if (E.confirm.open) E.confirm.close();
        resolve(answer);
      };
      this.pendingAsk = finish;
      E.confirmYes.onclick = () => finish(true);
      E.confirmNo.onclick = () => finish(false);
      E.confirm.onclose = () => finish(null);
      if (E.confirm.showModal) E.confirm.showModal();
      else E.confirm.setAttribute("open", "");
      (danger ? E.confirmNo : E.confirmYes).focus();
    });
  }

  // ----- connection ---------------------------------------------------------------------------------------------
  wsUrl() {
    // `frames=batch`: each change of the table (its events and the state after them) comes as one frame.
    const path = this.wsPath + (this.wsPath.includes("?") ? "&" : "?") + "frames=batch";
    if (/^wss?:/.test(path)) return path;
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  }

  connect() {
    if (this.stopped) return;
    let ws;
    try {
      ws = new this.WebSocketImpl(this.wsUrl());
    } catch (e) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    this.setStatus(this.everConnected ? "reconnecting" : "connecting");
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.everConnected = true;
      this.lastSeq = null; // the server sends a fresh `state` on connect
      this.clockSamples = [];
      this.setStatus("open");
    };
    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.actPending = false;
      if (ev && ev.code === 4404) {
        this.stopped = true;
        this.setStatus("closed");
        return;
      }
      this.scheduleReconnect();
    };
    ws.onerror = () => {};
  }

  scheduleReconnect() {
    if (this.stopped) return;
    this.setStatus("reconnecting");
    const base = Math.min(15000, 500 * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 10);
    clearTimeout(this.reconnectHandle);
    this.reconnectHandle = setTimeout(() => this.connect(), base * (0.75 + Math.random() * 0.5));
  }

  setStatus(status) {
    const el = this.el.status;
    el.dataset.state = status;
    el.textContent = this.t({ connecting: "connecting", open: "connected", reconnecting: "reconnecting", closed: "table_closed" }[status]);
    this.root.classList.toggle("is-offline", status !== "open");
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== 1) {
      this.toast(this.t("not_connected"));
      return false;
    }
    this.ws.send(JSON.stringify(message));
    return true;
  }

  requestSync() {
    const now = Date.now();
    if (this.syncPendingSince && now - this.syncPendingSince < 3000) return;
    this.syncPendingSince = now;
    if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify({ type: "sync" }));
  }

  onMessage(msg) {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "batch") {
      // one change's messages, in seq order, each handled as if it had come alone
      for (const inner of Array.isArray(msg.messages) ? msg.messages : []) {
        if (inner && inner.type !== "batch") this.onMessage(inner);
      }
      return;
    }
    const seq = Number.isInteger(msg.seq) ? msg.seq : null;
    if (msg.type === "state") {
      if (seq !== null && this.lastSeq !== null && seq < this.lastSeq) return; // older than what we have seen
      if (seq !== null) this.lastSeq = seq;
      this.syncPendingSince = 0;
      this.onState(msg);
    } else if (msg.type === "event") {
      if (seq !== null && this.lastSeq !== null) {
        if (seq <= this.lastSeq) return; // already seen
        if (seq > this.lastSeq + 1) this.requestSync();
      }
      if (seq !== null) this.lastSeq = seq;
      try {
        this.onEvent(msg);
      } catch (e) {
        console.warn("table event not shown", msg, e);
      }
    } else if (msg.type === "chat_history") {
      this.chatHistory(Array.isArray(msg.lines) ? msg.lines : []);
    } else if (["waiting", "seat_offer", "seat_offer_expired", "waiting_dropped", "removed"].includes(msg.type)) {
      this.onPersonal(msg);
    } else if (msg.type === "error") {
      this.toast(msg.message || msg.code || this.t("error"));
      if (this.actPending) {
        this.actPending = false;
        this.setActionBarEnabled(true);
      }
    }
  }

  // ----- state --------------------------------------------------------------------------------------------------
  onState(state) {
    const receivedAt = Date.now();
    const serverTime = Date.parse(state.server_time);
    if (Number.isFinite(serverTime)) {
      // The smallest delay seen gives the best estimate of the server clock's offset.
      this.clockSamples.push(serverTime - receivedAt);
      if (this.clockSamples.length > 20) this.clockSamples.shift();
    }
    state.seats = [...(state.seats || [])].sort((a, b) => a.seat - b.seat);
    state.legal = Array.isArray(state.legal) ? state.legal : [];
    if (state.table) this.table = { ...this.table, ...state.table };
    state.table = this.table;
    this.state = state;

    if (state.hand) {
      this.lastHand = { ...state.hand, board: state.board || [] };
      if (this.finished && this.finished.handId !== state.hand.id) this.finished = null; // the next deal
      if (!this.finished) this.handSeats = { handId: state.hand.id, seats: state.seats };
    }
    const handKey = state.hand ? String(state.hand.id) : null;
    if (handKey !== this.handKey) {
      this.handKey = handKey;
      this.lastActions.clear();
      this.clearPreActions();
    }
    const streetKey = state.hand ? `${state.hand.id}:${state.hand.street}` : null;
    if (streetKey !== this.streetKey) {
      this.streetKey = streetKey;
      this.lastActions.clear();
      this.clearPreActions();
    }
    if (state.options && typeof state.options === "object") {
      this.options = { ...this.options, ...state.options };
    }
    this.setTimer(state, serverTime, receivedAt);
    this.render();
    this.findMyTournamentTable();
  }

  /** At a tournament table where you are not (or no longer) seated: were you moved while your connection was
   * down? The tournament list says where you play (`your_table`); the page follows you there if you sat here,
   * else the spectator bar offers the link. Asked at most every 10 s. */
  async findMyTournamentTable() {
    const info = this.state && this.state.tournament;
    if (this.me) this.wasSeatedHere = true;
    if (!info || info.status !== "running" || !this.authenticated || this.me || this.followTo) return;
    const now = Date.now();
    if (this.lastTableLookup && now - this.lastTableLookup < 10000) return;
    this.lastTableLookup = now;
    try {
      const answer = await fetch("/api/tournaments/", { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!answer.ok) return;
      const row = (await answer.json()).find((t) => t.id === info.id);
      const mine = row && row.you === "playing" ? row.your_table : null;
      if (!mine || mine === this.currentTable().id) return;
      if (this.wasSeatedHere) this.follow(mine);
      else this.myTournamentTable = mine;
      this.renderSpectatorBar();
    } catch (e) {
      // offline for a moment: the next state asks again
    }
  }

  renderChatInput() {
    // Only seated players chat (the server refuses the others); spectators read.
    const input = this.el.chatInput;
    if (!input) return;
    const may = !!this.me;
    input.disabled = !may;
    const button = this.el.chatForm && this.el.chatForm.querySelector("button");
    if (button) button.disabled = !may;
    input.placeholder = may ? this.t("chat_placeholder") : this.t(this.authenticated ? "chat_sit" : "chat_login");
  }

  mySeat() {
    const s = this.state;
    if (!s || !this.authenticated) return null;
    const you = s.you ?? s.my_seat;
    if (Number.isInteger(you)) return s.seats.find((x) => x.seat === you && x.player) || null;
    return s.seats.find((x) => x.player && (x.player.you === true || x.player.name === this.userName)) || null;
  }

  render() {
    this.me = this.mySeat();
    this.root.classList.toggle("is-seated", !!this.me);
    this.renderChatInput();
    this.renderHead();
    this.renderCenter(); // first: the seats' bets are placed clear of the board and the pots
    this.renderSeats();
    this.renderActionArea();
    this.renderSeatControls();
    this.renderSpectatorBar();
    this.tick();
  }

  renderHead() {
    const table = this.currentTable();
    const E = this.el;
    E.title.textContent = table.name || "";
    const parts = [];
    if (table.structure || table.game) {
      parts.push([table.structure && this.t(`structure_${table.structure}`), table.game && this.t(`game_${table.game}`)].filter(Boolean).join(" "));
    }
    if (table.small_blind !== undefined && table.big_blind !== undefined) {
      parts.push(this.t("blinds", { sb: this.short(table.small_blind), bb: this.short(table.big_blind) }));
    }
    if (table.seats) parts.push(table.seats === 2 ? this.t("heads_up") : this.t("max_seats", { n: table.seats }));
    if (table.currency === "play" && !this.isTournament()) parts.push(this.t("chips", { amount: "" }).trim());
    E.meta.textContent = parts.join(" · ");
    this.renderBombPotNext(table);
    this.renderPaused(table);
    this.renderTournament();
    const hand = this.state && this.state.hand;
    E.handNumber.textContent = hand ? this.t("hand_number", { number: hand.id ?? hand.number }) : "";  // the number My hands and the histories use
    E.handNumber.hidden = !hand;
    E.street.textContent = hand && hand.street ? this.t(`street_${hand.street}`) : "";
    E.street.hidden = !(hand && hand.street);
    const commitment = hand && hand.deck_commitment;
    E.commitment.hidden = !commitment;
    if (commitment) {
      E.commitment.title = `${this.t("deck_commitment")}: ${commitment}`;
      E.commitment.dataset.commitment = commitment;
      E.commitmentText.textContent = commitment;
    } else {
      this.toggleCommitment(false);
    }
  }

  /** A table with bomb pots says when the next one is dealt ("Bomb pot next hand", "in 3 hands"), with its rule
   * in the tooltip (`table.bomb_pot`: every, ante_bb, ante, next_in). */
  renderBombPotNext(table) {
    const E = this.el;
    const bomb = table.bomb_pot;
    E.bombPotNext.hidden = !bomb;
    if (!bomb) return;
    const text = bomb.next_in === 1 ? this.t("bomb_pot_next") : this.t("bomb_pot_in", { n: bomb.next_in });
    if (E.bombPotNext.textContent !== text) E.bombPotNext.textContent = text;
    E.bombPotNext.dataset.nextIn = String(bomb.next_in);
    E.bombPotNext.title = `${this.bombPotRule(bomb)}. ${this.t("bomb_pot_help")}`;
  }

  bombPotRule(bomb) {
    return bomb.every === 1 ? this.t("bomb_pot_every_one", { ante: bomb.ante_bb })
      : this.t("bomb_pot_every", { n: bomb.every, ante: bomb.ante_bb });
  }

  /** A table staff paused: the banner under the head with their notice, from the state, so that a player who
   * opens the page (or reconnects) after the pause reads it too. */
  renderPaused(table) {
    const E = this.el;
    const paused = !!table.paused;
    E.paused.hidden = !paused;
    this.root.classList.toggle("is-paused", paused);
    if (!paused) {
      E.paused.replaceChildren();
      return;
    }
    const notice = table.pause_notice || "";
    if (E.paused.dataset.notice === notice && E.paused.childElementCount) return;
    E.paused.dataset.notice = notice;
    E.paused.replaceChildren(h("strong", { text: this.t("table_paused") }),
      notice ? h("span", { class: "pause-text", text: " " + this.t("staff_says", { text: notice }) }) : null);
  }

  /** The tournament's line under the table's name: level, blinds and ante, time to the next level, your place,
   * players left and the average stack (state.tournament, docs/protocol.md). */
  renderTournament() {
    const E = this.el;
    const info = this.state && this.state.tournament;
    E.tournamentBar.hidden = !info;
    if (!info) return;
    const me = this.mySeat();
    const place = me && info.places ? info.places[String(me.seat)] : null;
    const blinds = this.t("blinds", { sb: formatCount(info.small_blind), bb: formatCount(info.big_blind) }) +
      (info.ante ? " · " + this.t("t_ante", { ante: formatCount(info.ante) }) : "");
    const link = h("a", { href: `/tournaments/${info.id}/`, class: "tournament-link", text: info.name });
    if (info.status === "finished") {
      E.tournamentBar.replaceChildren(link, " · ", h("span", { class: "t-over", text: this.t("t_over") }));
      this.el.tournamentClock = null;
      return;
    }
    E.tournamentLevel = h("span", { class: "t-level", id: "t-level", text: this.t("t_level", { n: info.level }) });
    E.tournamentClock = h("span", { class: "t-clock", id: "t-clock" });
    const parts = [link, E.tournamentLevel, h("span", { class: "t-blinds", id: "t-blinds", text: blinds }), E.tournamentClock,
      h("span", { class: "t-left", id: "t-left", text: this.t("t_left", { left: info.players_left, entrants: info.entrants }) }),
      h("span", { class: "t-avg", id: "t-avg", text: this.t("t_average", { amount: formatCount(info.average_stack) }) })];
    if (place) parts.push(h("span", { class: "t-place", id: "t-place", text: this.t("t_place", { place, left: info.players_left }) }));
    if (info.hand_for_hand) parts.push(h("span", { class: "t-h4h", id: "t-h4h", text: this.t("t_hand_for_hand") }));
    E.tournamentBar.replaceChildren(...parts.flatMap((part, i) => (i ? [" · ", part] : [part])));
    this.tickTournament();
  }

  tickTournament() {
    const info = this.state && this.state.tournament;
    const el = this.el.tournamentClock;
    if (!info || !el) return;
    if (!info.next_level_at) {
      el.textContent = "";
      return;
    }
    const offset = this.clockSamples.length ? Math.max(...this.clockSamples) : 0;
    const left = Math.max(0, Math.round((Date.parse(info.next_level_at) - (Date.now() + offset)) / 1000));
    const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    el.textContent = this.t("t_next_level", { time: text });
  }

  toggleCommitment(open) {
    const pop = this.el.commitmentPopover;
    const show = open === undefined ? pop.hidden : open;
    pop.hidden = !show;
    this.el.commitment.setAttribute("aria-expanded", show ? "true" : "false");
  }

  copyCommitment(button) {
    const text = this.el.commitmentText.textContent;
    const done = () => { button.textContent = this.t("copied"); setTimeout(() => { button.textContent = this.t("copy"); }, 1500); };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, () => {});
  }

  // ----- seats --------------------------------------------------------------------------------------------------
  renderSeats() {
    const state = this.state;
    const container = this.el.seats;
    if (!state) return;
    const table = this.currentTable();
    const seats = state.seats;
    const n = Math.max(2, Math.min(10, table.seats || seats.length || 2));
    const phone = this.phoneQuery && this.phoneQuery.matches;
    const points = seatPoints(n, phone ? 0.8 : 2.05);
    // Turn the table so that your own seat is at the bottom, as every room does.
    const order = seats.map((s) => s.seat);
    const meIndex = this.me ? order.indexOf(this.me.seat) : 0;
    const canSit = this.authenticated && !this.me && !this.isTournament();
    const fragments = [];
    seats.forEach((seat, i) => {
      const p = points[((i - Math.max(0, meIndex)) % n + n) % n] || points[i % points.length];
      const pos = { x: 50 + (phone ? 39.5 : 45.5) * p.x, y: 50 + (phone ? 42.5 : 41.5) * p.y };
      const style = `left:${pos.x.toFixed(2)}%;top:${pos.y.toFixed(2)}%`;
      const place = { "data-px": p.x.toFixed(4), "data-py": p.y.toFixed(4), style };
      const status = seat.player ? seat.status : "empty";
      if (!seat.player || status === "empty") {
        let content;
        const mine = this.waiting && this.waiting.offered_seat === seat.seat;
        if (seat.reserved && !mine) {  // held for a player on the waiting list
          content = h("span", { class: "open-seat reserved", text: this.t("seat_reserved") });
        } else if (canSit) {
          content = h("button", { type: "button", class: "sit-here", "data-seat": seat.seat, text: this.t("sit_here"),
            onclick: () => this.openBuyIn(seat.seat) });
        } else if (!this.authenticated) {
          content = h("a", { class: "sit-here login", "data-seat": seat.seat, href: this.loginUrl, text: this.t("sit_here") });
        } else {
          content = h("span", { class: "open-seat", text: this.t("open_seat") });
        }
        fragments.push(h("div", { class: "seat empty", "data-seat": seat.seat, ...place,
          "aria-label": this.t("seat_n", { n: seat.seat }) }, content));
        return;
      }
      fragments.push(this.seatElement(seat, status, place));
    });
    container.replaceChildren(...fragments);
    this.root.querySelector(".felt-wrap").dataset.seats = String(n);
    this.placeSeatExtras();
    this.tick();
  }

  seatElement(seat, status, place) {
    const state = this.state;
    const hand = state.hand;
    const finished = this.finished;
    const isMe = !!this.me && this.me.seat === seat.seat;
    const isTurn = state.to_act === seat.seat && !!hand;
    const won = finished ? finished.won.get(seat.seat) || 0 : 0;
    const classes = ["seat", `status-${status}`];
    if (isMe) classes.push("is-me");
    if (won) classes.push("is-winner");
    if (isTurn) classes.push("is-turn");
    if (seat.player.bot) classes.push("is-bot");
    if (seat.disconnected) classes.push("is-disconnected");

    const { cards, shown, kept } = this.seatCards(seat, status, isMe);
    const cardsEl = h("div", { class: `cards n${cards.length}${shown ? " shown" : ""}${kept ? " kept" : ""}` },
      cards.map((c) => cardEl(c)));
    const boards = finished ? finished.boards : (state.boards && state.boards.length ? state.boards : [state.board || []]);
    const nameOn = (board) => describeShown(cards, board, this.currentTable().game, (k, p) => this.t(k, p));
    // Run twice: the hand's name on each board ("a pair of aces | three of a kind, queens").
    const named = cards.length && cards[0] && (shown || isMe) && boards[0].length >= 3
      ? boards.filter((b) => b.length >= 3).map(nameOn).join(" | ") : "";

    let statusText = "";
    if (this.isBusted(seat)) statusText = this.t("status_busted");
    else if (status === "waiting_bb") statusText = this.t("status_waiting_bb");
    else if (status === "sitting_out") statusText = this.t("status_sitting_out");
    else if (status === "folded") statusText = this.t("status_folded");
    else if (status === "all_in") statusText = this.t("status_all_in");
    else if (this.lastActions.has(seat.seat)) statusText = this.t(`last_${this.lastActions.get(seat.seat)}`);
    if (seat.leaving) statusText = this.t("status_leaving");
    else if (seat.sitting_out_next && status !== "sitting_out") statusText = this.t("status_sitting_out_next");
    if (seat.disconnected) statusText = this.t("status_disconnected");

    const bet = seat.bet || 0;
    const betEl = h("div", { class: `bet${bet ? "" : " none"}`, "data-amount": bet },
      bet ? [h("span", { class: "chip-stack", "aria-hidden": "true" }), h("span", { class: "bet-amount", text: this.short(bet) })] : []);
    const wonEl = won ? h("div", { class: "won", "data-amount": won, title: this.t("hand_won", { name: seat.player.name, amount: this.money(won) }) },
      h("span", { class: "chip-stack", "aria-hidden": "true" }), `+${this.short(won)}`) : null;
    const timer = isTurn ? h("div", { class: "timer", "data-seat": seat.seat },
      h("div", { class: "timer-bar" }), h("span", { class: "timer-text" })) : null;
    const bank = isTurn && seat.time_bank_ms
      ? h("span", { class: "time-bank", text: this.t("time_bank_left", { n: Math.round(seat.time_bank_ms / 1000) }) }) : null;
    const plate = h("div", { class: "plate" }, wonEl,
      seat.player.bot ? h("span", { class: "bot-badge", title: this.t("bot_title"), text: this.t("bot") }) : null,
      h("div", { class: "name", title: seat.player.name }, h("span", { class: "player-name", text: seat.player.name })),
      h("div", { class: "plate-row" }, h("span", { class: "stack", "data-amount": seat.stack || 0, text: this.short(seat.stack || 0) })),
      // The hand's name while it matters, unless the seat has news of its own (broke, leaving).
      named && !this.isBusted(seat) && !seat.leaving && !seat.disconnected ? h("div", { class: `hand-name${named.includes(" | ") ? " two-boards" : ""}`, text: named, title: named })
        : h("div", { class: "status", text: statusText }),
      timer, bank);
    const button = state.button === seat.seat
      ? h("span", { class: "dealer-button", title: this.t("dealer_button"), text: "D" }) : null;
    return h("div", { class: classes.join(" "), "data-seat": seat.seat, "data-status": status, ...place },
      cardsEl, plate, betEl, button);
  }

  /** The cards a seat shows: real ones when we may see them (ours, shown ones, those shown when the last hand
   * ended, ours kept for our eyes until the next deal: `kept`), else backs while the player holds cards. */
  seatCards(seat, status, isMe) {
    const state = this.state;
    const finished = this.finished;
    if (Array.isArray(seat.cards) && seat.cards.length) return { cards: seat.cards, shown: !isMe };
    if (finished) {
      const shown = finished.shown.get(seat.seat);
      if (shown) return { cards: shown, shown: true };
      if (isMe && finished.mine && !finished.folded.has(seat.seat)) return { cards: finished.mine, shown: false, kept: true };
      return { cards: [], shown: false };
    }
    const inHand = typeof seat.has_cards === "boolean" ? seat.has_cards : !!state.hand && (status === "active" || status === "all_in");
    return { cards: inHand ? Array(holeCardCount(this.currentTable().game)).fill(null) : [], shown: false };
  }

  // Bets and the dealer button sit just in front of each seat, toward the centre, clear of its plate
  // and cards whatever their size (measured: names, card counts and screen sizes change them), and moved aside
  // when that spot is on the board or the pots (a narrow screen's side seats).
  placeSeatExtras() {
    const felt = this.el.felt;
    const width = felt.clientWidth;
    const height = felt.clientHeight;
    if (!width || !height) return;
    const centre = [this.el.board, this.el.seats.parentElement.querySelector(".pot-area")]
      .map((el) => el.getBoundingClientRect()).filter((r) => r.width && r.height);
    for (const seat of this.el.seats.querySelectorAll(".seat")) {
      const dx0 = -Number(seat.dataset.px) * width;
      const dy0 = -Number(seat.dataset.py) * height;
      const length = Math.hypot(dx0, dy0) || 1;
      const d = { x: dx0 / length, y: dy0 / length };
      const box = seat.getBoundingClientRect();
      const half = { w: box.width / 2, h: box.height / 2 };
      const mid = { x: box.left + half.w, y: box.top + half.h };
      const bet = seat.querySelector(".bet:not(.none)");
      if (bet) {
        const size = { w: bet.offsetWidth / 2, h: bet.offsetHeight / 2 };
        const dist = exitDistance(d, half) + exitDistance(d, size) + 6;
        const at = clearOf({ x: mid.x + d.x * dist, y: mid.y + d.y * dist }, size, centre, box, mid);
        bet.style.left = `calc(50% + ${(at.x - mid.x).toFixed(1)}px)`;
        bet.style.top = `calc(50% + ${(at.y - mid.y).toFixed(1)}px)`;
      }
      const button = seat.querySelector(".dealer-button");
      if (button) {
        // Beside the bet: turned a little from the line to the centre.
        const turn = d.x * d.y >= 0 ? -0.6 : 0.6;
        const r = { x: d.x * Math.cos(turn) - d.y * Math.sin(turn), y: d.x * Math.sin(turn) + d.y * Math.cos(turn) };
        const dist = exitDistance(r, half) + button.offsetWidth / 2 + 4;
        button.style.left = `calc(50% + ${(r.x * dist).toFixed(1)}px)`;
        button.style.top = `calc(50% + ${(r.y * dist).toFixed(1)}px)`;
      }
    }
  }

  renderCenter() {
    const state = this.state;
    const E = this.el;
    const finished = this.finished;
    let boards = state.boards && state.boards.length ? state.boards : [state.board || []];
    // Between hands the last board stays on the felt until the next deal, as in every room.
    if (!state.hand && !boards[0].length) {
      boards = finished ? finished.boards : [(this.lastHand && this.lastHand.board) || []];
    }
    const board = boards[0];
    const second = boards.length > 1 ? boards[1] : null;
    const fill = (el, cards, label) => {
      const slots = label ? [h("span", { class: "run-label", text: label })] : [];
      for (let i = 0; i < 5; i++) slots.push(cards[i] ? cardEl(cards[i], "board-card") : h("span", { class: "pcard slot", "aria-hidden": "true" }));
      el.replaceChildren(...slots);
      el.classList.toggle("is-past", !state.hand && cards.length > 0);
      el.classList.toggle("is-empty", cards.length === 0);
    };
    fill(E.board, board, second ? this.t("run_n", { n: 1 }) : "");
    E.board2.hidden = !second;
    E.boards.classList.toggle("run-twice", !!second);
    if (second) fill(E.board2, second, this.t("run_n", { n: 2 }));

    // A bomb pot is named on the felt above the pot, while it is played and until the next deal.
    const bombAnte = finished ? finished.bombPot : (state.hand && state.hand.bomb_pot) || 0;
    E.bombPot.hidden = !bombAnte;
    E.bombPot.textContent = bombAnte ? `${this.t("bomb_pot")} · ${this.t("t_ante", { ante: this.short(bombAnte) })}` : "";
    E.bombPot.dataset.ante = String(bombAnte);

    // One pot figure while the hand is played (with the side pots named once there are any); at its end each
    // pot with its gross amount, rake and what its winners shared.
    const gross = finished ? 0 : grossPot(state);
    E.totalPot.textContent = gross ? this.t("total_pot", { amount: this.money(gross) }) : "";
    E.totalPot.dataset.amount = String(gross);
    E.pots.classList.toggle("is-final", !!finished);
    if (finished) {
      E.pots.replaceChildren(...finished.pots.map((pot, i) => this.potResult(pot, i)));
      return;
    }
    const pots = state.pots || [];
    const live = pots.length > 1 ? pots : [];
    E.pots.replaceChildren(...live.map((pot, i) => h("div", {
      class: `pot${i === 0 ? " main" : " side"}`, "data-pot": i, "data-amount": pot.amount, "data-rake": pot.rake || 0,
      "data-net": pot.net ?? pot.amount,
    }, h("span", { class: "pot-label", text: this.potName(i) }), h("span", { class: "pot-net", text: this.short(pot.amount) }))));
  }

  potName(i) {
    return i === 0 ? this.t("main_pot") : this.t("side_pot", { n: i });
  }

  potResult(pot, i) {
    const name = (seat) => this.seatName(seat, this.finished.names);
    const winners = winnerList(pot.winners).filter((w) => w.amount);
    let lines = winners.map((w) => h("span", { class: "pot-winner", "data-seat": w.seat },
      this.t("hand_won", { name: name(w.seat), amount: this.short(w.amount) })));
    if (this.currentTable().game === "omaha_hilo" && Number.isFinite(pot.high_amount)) lines.push(...this.potHalves(pot, name));
    if (Array.isArray(pot.runs) && pot.runs.length) {
      // Run twice: each half of the pot and who won it on its board.
      lines = pot.runs.flatMap((run) => winnerList(run.winners).filter((w) => w.amount).map((w) => h("span", {
        class: "pot-winner run-winner", "data-seat": w.seat, "data-run": run.run,
      }, this.t("run_won", { n: run.run, name: name(w.seat), amount: this.short(w.amount) }))));
    }
    return h("div", {
      class: `pot${i === 0 ? " main" : " side"}`, "data-pot": i, "data-amount": pot.amount, "data-rake": pot.rake || 0,
      "data-net": pot.net ?? pot.amount,
    },
    h("span", { class: "pot-label", text: this.potName(i) }),
    h("span", { class: "pot-net", text: this.money(pot.net ?? pot.amount) }),
    h("span", { class: "pot-rake", text: `${this.t("gross", { amount: this.short(pot.amount) })} · ${this.t("rake", { amount: this.short(pot.rake || 0) })}` }),
    ...lines);
  }

  /** Omaha Hi-Lo: the high and the low halves of a pot, each with its amount and winners ("High: 2.84 to alice";
   * "Low: 2.83 to alice, bruno"), or that no hand made a low and the high half took it all. */
  potHalves(pot, name) {
    const names = (seats) => (seats || []).map((seat) => name(seat)).join(", ");
    const half = (key, amount, seats) => h("span", { class: `pot-half ${key}`, "data-half": key, "data-amount": amount,
      "data-seats": (seats || []).join(","), text: this.t(`hi_lo_${key}_to`, { amount: this.short(amount), names: names(seats) }) });
    const lows = pot.low_winners || [];
    return [half("high", pot.high_amount, pot.high_winners),
      lows.length ? half("low", pot.low_amount || 0, lows)
        : h("span", { class: "pot-half no-low", "data-half": "low", "data-amount": 0, text: this.t("hi_lo_no_low") })];
  }

  // ----- timer --------------------------------------------------------------------------------------------------
  setTimer(state, serverTime, receivedAt) {
    if (state.to_act === null || state.to_act === undefined || !state.hand || !Number.isFinite(state.remaining_ms)) {
      this.timer = null;
      return;
    }
    const key = `${state.hand.id}:${state.hand.action_no}:${state.to_act}`;
    let deadline = receivedAt + state.remaining_ms;
    if (Number.isFinite(serverTime) && this.clockSamples.length) {
      const offset = Math.max(...this.clockSamples); // server clock minus ours, less the smallest delay seen
      deadline = serverTime + state.remaining_ms - offset;
    }
    deadline = Math.min(deadline, receivedAt + state.remaining_ms);
    const seat = state.seats.find((s) => s.seat === state.to_act);
    const bank = (seat && seat.time_bank_ms) || 0;
    const previous = this.timer && this.timer.key === key ? this.timer : null;
    this.timer = {
      key, deadline, bank,
      total: previous ? previous.total : Math.max(state.remaining_ms, 1),
      bankTotal: previous ? previous.bankTotal : Math.max(bank, 1),
    };
  }

  tick() {
    this.tickTournament();
    const el = this.root.querySelector(".seat.is-turn .timer");
    if (!el || !this.timer) return;
    const left = this.timer.deadline - Date.now();
    const bar = el.querySelector(".timer-bar");
    const text = el.querySelector(".timer-text");
    if (left > 0) {
      const share = clamp(left / this.timer.total, 0, 1);
      bar.style.width = (share * 100).toFixed(1) + "%";
      el.dataset.phase = share < 0.25 ? "late" : share < 0.5 ? "mid" : "early";
      text.textContent = this.t("seconds", { n: Math.ceil(left / 1000) });
    } else {
      const bankLeft = Math.max(0, this.timer.bank + left);
      el.dataset.phase = "bank";
      bar.style.width = ((bankLeft / this.timer.bankTotal) * 100).toFixed(1) + "%";
      text.textContent = `${this.t("time_bank")} ${this.t("seconds", { n: Math.ceil(bankLeft / 1000) })}`;
    }
  }

  // ----- actions ------------------------------------------------------------------------------------------------
  renderActionArea() {
    const state = this.state;
    const E = this.el;
    this.dropStaleQuestion();
    const legal = this.authenticated ? state.legal : [];
    if (legal.length) {
      const key = this.decisionKeyOf(legal);
      if (key !== this.decisionKey) {
        this.decisionKey = key;
        this.actPending = false;
        this.buildActionBar(legal);
        E.actionBar.classList.remove("is-pending"); // left by the last decision's answer
        E.actionBar.hidden = false;
        E.preActions.hidden = true;
        document.title = "● " + this.t("your_turn") + " · " + this.baseTitle;
        if (this.applyPreAction(legal, key)) return;
      } else {
        this.actPending = false;
        this.setActionBarEnabled(true);
      }
      E.actionBar.hidden = false;
      E.preActions.hidden = true;
      return;
    }
    if (this.decisionKey !== null) document.title = this.baseTitle;
    this.decisionKey = null;
    this.actPending = false;
    E.actionBar.hidden = true;
    E.actionBar.replaceChildren();
    const me = this.me;
    const canPre = !!me && !!state.hand && me.status === "active" && state.to_act !== me.seat && state.hand.street !== "showdown";
    E.preActions.hidden = !canPre;
    if (!canPre) this.clearPreActions();
  }

  /** What names the decision the bar answers: the hand, its action number and what is legal. */
  decisionKeyOf(legal) {
    const hand = this.state.hand;
    return `${hand ? hand.id : "-"}:${hand ? hand.action_no : "-"}:${JSON.stringify(legal)}`;
  }

  /** A "fold when you can check?" question whose decision is gone (acted on by the clock, say) is withdrawn. */
  dropStaleQuestion() {
    if (!this.askingFor) return;
    const legal = this.authenticated ? this.state.legal : [];
    if (legal.length && this.decisionKeyOf(legal) === this.askingFor) return;
    this.askingFor = null;
    if (this.pendingAsk) this.pendingAsk(null);
  }

  legalEntry(action) {
    return (this.state.legal || []).find((e) => e.action === action) || null;
  }

  buildActionBar(legal) {
    const E = this.el;
    const has = (a) => legal.some((e) => e.action === a);
    const state = this.state;
    const me = this.me;
    const chip = this.chip();
    const buttons = [];
    const sizing = [];
    this.raiseEntry = legal.find((e) => RAISE_ACTIONS.includes(e.action)) || null;

    if (has("fold")) buttons.push(this.actionButton("fold", this.t("fold"), "F"));
    if (has("check")) buttons.push(this.actionButton("check", this.t("check"), "C"));
    if (has("call")) {
      // legal gives the call as a "to" amount; the button says what calling costs, as rooms do.
      const entry = this.legalEntry("call");
      const to = entry.max ?? entry.min ?? 0;
      const cost = me ? Math.max(0, Math.min(to - (me.bet || 0), me.stack || 0)) : to;
      buttons.push(this.actionButton("call", this.t("call", { amount: this.short(cost || to) }), "C"));
    }
    if (this.raiseEntry) {
      const entry = this.raiseEntry;
      this.amount = entry.min;
      if (entry.max > entry.min) {
        const presets = presetAmounts(state, me, entry, chip);
        this.presets = presets;
        const presetRow = h("div", { class: "presets" }, PRESETS.map(([name]) => h("button", {
          type: "button", class: "preset", "data-preset": name, "data-amount": presets[name],
          text: this.t(`preset_${name}`), title: this.short(presets[name]),
          onclick: () => { this.setAmount(presets[name]); this.el.amountInput?.focus(); },
        })));
        const steps = Math.ceil((entry.max - entry.min) / chip);
        E.amountSlider = h("input", { type: "range", id: "amount-slider", min: "0", max: String(steps), step: "1", value: "0",
          "aria-label": this.t("amount"),
          oninput: () => this.setAmount(Math.min(entry.max, entry.min + Number(E.amountSlider.value) * chip), "slider") });
        E.amountInput = h("input", { type: "text", id: "amount-input", inputmode: "decimal", autocomplete: "off",
          "aria-label": this.t("amount"), value: this.amountText(entry.min),
          oninput: () => {
            const v = this.amountRead(E.amountInput.value);
            if (v !== null) this.setAmount(clampToLegal(v, entry, chip), "input");
          },
          onchange: () => this.readTypedAmount(),
          onfocus: () => E.amountInput.select() });
        sizing.push(presetRow, h("div", { class: "amount-row" }, E.amountSlider,
          h("label", { class: "amount-field" }, this.currency() === "eur" ? h("span", { class: "unit", text: "€" }) : null, E.amountInput)));
      } else {
        E.amountSlider = null;
        E.amountInput = null;
        this.presets = null;
      }
      const label = entry.action === "bet" ? "bet" : "raise";
      E.raiseButton = this.actionButton(entry.action, this.t(label, { amount: this.short(entry.min) }), "R");
      buttons.push(E.raiseButton);
    } else {
      E.amountSlider = null;
      E.amountInput = null;
      E.raiseButton = null;
    }
    if (has("all_in")) {
      const entry = this.legalEntry("all_in");
      const to = entry.max ?? entry.min ?? (me ? (me.bet || 0) + (me.stack || 0) : 0);
      buttons.push(this.actionButton("all_in", this.t("all_in", { amount: this.short(to) }), null));
    }
    if (has("show")) buttons.push(this.actionButton("show", this.t("show"), null));
    if (has("muck")) buttons.push(this.actionButton("muck", this.t("muck"), null));

    // The keys are on the buttons and under "Shortcuts" in the head: no legend row, the bar stays low.
    E.actionBar.replaceChildren(
      h("div", { class: "action-top" }, h("div", { class: "your-turn", text: this.t("your_turn") }),
        sizing.length ? h("div", { class: "bet-sizing" }, sizing) : null),
      h("div", { class: "action-buttons" }, buttons));
    if (this.raiseEntry) this.setAmount(this.raiseEntry.min);
  }

  actionButton(action, label, key) {
    const kind = { fold: "fold", check: "passive", call: "passive", bet: "aggressive", raise: "aggressive", all_in: "aggressive" }[action] || "neutral";
    return h("button", {
      type: "button", class: `act ${kind}`, "data-action": action, title: key ? `${label} (${key})` : label,
      onclick: () => this.act(action),
    }, h("span", { class: "act-label", text: label }), key ? h("kbd", { text: key }) : null);
  }

  setAmount(value, source) {
    const entry = this.raiseEntry;
    if (!entry) return;
    const chip = this.chip();
    this.amount = clampToLegal(value, entry, chip);
    const E = this.el;
    if (E.amountSlider && source !== "slider") {
      E.amountSlider.value = String(this.amount >= entry.max ? E.amountSlider.max : Math.round((this.amount - entry.min) / chip));
    }
    if (E.amountInput && source !== "input") E.amountInput.value = this.amountText(this.amount);
    if (E.raiseButton) {
      const label = this.t(entry.action === "bet" ? "bet" : "raise", { amount: this.short(this.amount) });
      E.raiseButton.querySelector(".act-label").textContent = label;
      E.raiseButton.dataset.amount = String(this.amount);
    }
    for (const b of E.actionBar.querySelectorAll("[data-preset]")) {
      b.classList.toggle("selected", Number(b.dataset.amount) === this.amount);
    }
  }

  readTypedAmount() {
    const E = this.el;
    if (!E.amountInput || !this.raiseEntry) return this.amount;
    const v = this.amountRead(E.amountInput.value);
    this.setAmount(v === null ? this.amount : v);
    return this.amount;
  }

  act(action, { confirmed = false } = {}) {
    const state = this.state;
    if (!state || this.actPending || !this.legalEntry(action)) return;
    if (action === "fold" && !confirmed && this.legalEntry("check")) {
      const key = this.decisionKey;
      this.askingFor = key;
      this.ask({
        title: this.t("fold_confirm_title"), text: this.t("fold_confirm_text"),
        yes: this.t("fold_anyway"), no: this.t("check"), danger: true,
      }).then((fold) => {
        this.askingFor = null;
        if (fold === null || key !== this.decisionKey) return; // dismissed, or the decision is gone
        this.act(fold ? "fold" : "check", { confirmed: true });
      });
      return;
    }
    const message = { type: "act", action };
    if (RAISE_ACTIONS.includes(action)) message.amount = this.readTypedAmount();
    message.hand_id = state.hand ? state.hand.id : null;
    message.action_no = state.hand ? state.hand.action_no : null;
    if (this.send(message)) {
      this.actPending = true;
      this.setActionBarEnabled(false);
      document.title = this.baseTitle;
    }
  }

  setActionBarEnabled(enabled) {
    for (const el of this.el.actionBar.querySelectorAll("button, input")) el.disabled = !enabled;
    this.el.actionBar.classList.toggle("is-pending", !enabled);
  }

  // Pre-actions: Check/Fold checks when a check is possible and folds otherwise; Call any calls whatever the amount
  // (checks when there is nothing to call). Both are cleared at each new street and hand, and once used.
  onPreAction(which) {
    const E = this.el;
    if (which === "check_fold" && E.preCheckFold.checked) E.preCallAny.checked = false;
    if (which === "call_any" && E.preCallAny.checked) E.preCheckFold.checked = false;
  }

  clearPreActions() {
    this.el.preCheckFold.checked = false;
    this.el.preCallAny.checked = false;
  }

  applyPreAction(legal, key) {
    const E = this.el;
    if (this.preAppliedFor === key) return false;
    const has = (a) => legal.some((e) => e.action === a);
    let action = null;
    if (E.preCheckFold.checked) action = has("check") ? "check" : has("fold") ? "fold" : null;
    else if (E.preCallAny.checked) action = has("call") ? "call" : has("check") ? "check" : has("all_in") ? "all_in" : null;
    if (!action) return false;
    this.preAppliedFor = key;
    this.clearPreActions();
    this.act(action);
    return true;
  }

  // ----- keyboard -----------------------------------------------------------------------------------------------
  bindKeys() {
    document.addEventListener("keydown", (ev) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented || ev.repeat) return;
      const target = ev.target;
      if (target && target.closest && target.closest("dialog")) return;
      if (this.el.actionBar.hidden || this.actPending) return;
      const inAmount = target === this.el.amountInput || target === this.el.amountSlider;
      if (isTypingTarget(target) && !inAmount) return; // typing in the chat: no shortcuts
      const key = ev.key.toLowerCase();
      const has = (a) => !!this.legalEntry(a);
      if (key === "f" && has("fold")) {
        ev.preventDefault();
        this.act("fold");
      } else if (key === "c" && (has("check") || has("call"))) {
        ev.preventDefault();
        this.act(has("check") ? "check" : "call");
      } else if (key === "r" && this.raiseEntry) {
        ev.preventDefault();
        if (this.el.amountInput) {
          this.el.amountInput.focus();
          this.el.amountInput.select();
        } else {
          this.el.raiseButton?.focus();
        }
      } else if (key === "enter" && this.raiseEntry && (inAmount || target === document.body || !target)) {
        ev.preventDefault();
        this.act(this.raiseEntry.action);
      }
    });
  }

  // ----- seat controls, buy-in, top-up --------------------------------------------------------------------------
  renderSeatControls() {
    const E = this.el;
    const me = this.me;
    E.seatControls.hidden = !me;
    if (!me) return;
    if (this.isTournament()) { // nobody leaves, sits out or buys chips in a tournament: only the options
      for (const el of [E.sitOut, E.sitInGroup, E.rebuy, E.topUpButton, E.leave]) el.hidden = true;
      E.autoMuck.checked = !!this.options.auto_muck;
      E.straddleLabel.hidden = true;
      E.myTimeBank.replaceChildren(icon("clock"), " ", this.t("time_bank_left", { n: Math.round((me.time_bank_ms || 0) / 1000) }));
      return;
    }
    const sittingOut = me.status === "sitting_out";
    const busted = this.isBusted(me);
    E.sitOut.hidden = sittingOut;
    E.sitOut.disabled = !!me.sitting_out_next;
    E.sitInGroup.hidden = !sittingOut || busted;
    E.rebuy.hidden = !busted;
    E.autoMuck.checked = !!this.options.auto_muck;
    E.straddle.checked = !!this.options.straddle;
    E.straddleLabel.hidden = !this.currentTable().straddle;
    E.runTwice.checked = !!this.options.run_twice;
    const table = this.currentTable();
    const room = (table.max_buy_in || 0) - (me.stack || 0);
    E.topUpButton.hidden = busted;
    E.topUpButton.disabled = room < this.chip() || this.inHand(me);
    E.topUpButton.title = this.t("top_up_between_hands");
    E.myTimeBank.replaceChildren(icon("clock"), " ", this.t("time_bank_left", { n: Math.round((me.time_bank_ms || 0) / 1000) }));
    const bank = table.time_bank;
    E.myTimeBank.title = bank && bank.refill_seconds
      ? this.t("time_bank_refill", { refill: bank.refill_seconds, hands: bank.refill_every_hands, max: bank.max_seconds })
      : this.t("time_bank");
    // Sitting out: the seat is kept until the table's limit, then it comes free (docs/tables.md).
    const keptUntil = me.kept_until ? new Date(me.kept_until) : null;
    E.keptUntil.hidden = !keptUntil;
    if (keptUntil) {
      const time = keptUntil.toLocaleTimeString(document.documentElement.lang || undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
      E.keptUntil.textContent = this.t(busted ? "kept_until_rebuy" : "kept_until_sit_in", { time });
    }
  }

  /** Dealt into the hand being played (folded included: the seat's chips are in it until it ends). */
  inHand(seat) {
    return !!this.state.hand && ["active", "all_in", "folded"].includes(seat.status);
  }

  /** Out of chips: the server sat the player out with less than a big blind; a rebuy brings them back. */
  isBusted(seat) {
    return seat.status === "sitting_out" && (seat.stack || 0) < (this.currentTable().big_blind || 1);
  }

  leave() {
    const me = this.me;
    if (!me) return;
    if (!this.inHand(me) || me.leaving) {
      this.send({ type: "leave" });
      return;
    }
    this.ask({
      title: this.t("leave_confirm_title"), text: this.t("leave_confirm_text"),
      yes: this.t("leave_after_hand"), no: this.t("stay"), danger: true,
    }).then((yes) => { if (yes) this.send({ type: "leave" }); });
  }

  renderSpectatorBar() {
    const E = this.el;
    if (this.me) {
      E.spectator.hidden = true;
      return;
    }
    E.spectator.hidden = false;
    const info = this.state && this.state.tournament;
    if (info) { // nobody takes a seat at a tournament table: the tournament seats its players
      E.spectator.replaceChildren(h("span", { text: this.t(info.status === "finished" ? "t_over" : "t_watching") }), " ",
        this.myTournamentTable
          ? h("a", { class: "button primary", id: "go-to-my-table", href: `/tables/${this.myTournamentTable}/`, text: this.t("t_your_table") })
          : h("a", { class: "button ghost", href: `/tournaments/${info.id}/`, text: this.t("t_see_standings") }));
      return;
    }
    if (!this.authenticated) {
      E.spectator.replaceChildren(h("span", { text: this.t("watching") }), " ",
        h("a", { id: "login-to-play", class: "button primary", href: this.loginUrl, text: this.t("login_to_play") }));
    } else if (this.waiting && this.waiting.offered_seat) {
      const seat = this.waiting.offered_seat;
      const left = Math.max(0, Math.round((Date.parse(this.waiting.expires_at) - Date.now()) / 1000)) || "";
      E.spectator.replaceChildren(h("span", { id: "waiting-offer", text: this.t("waiting_offer", { seat, n: left }) }), " ",
        h("button", { type: "button", id: "waiting-take", class: "button primary", text: this.t("waiting_take", { seat }),
          onclick: () => this.openBuyIn(seat) }));
    } else if (this.waiting) {
      E.spectator.replaceChildren(h("span", { id: "waiting-position", text: this.t("waiting_position", this.waiting) }), " ",
        h("button", { type: "button", id: "waiting-leave", class: "button ghost", text: this.t("waiting_leave"),
          onclick: () => this.send({ type: "waiting_leave" }) }));
    } else if (this.state && this.state.seats.length && this.state.seats.every((s) => s.player || s.reserved)) {
      E.spectator.replaceChildren(h("span", { text: this.t("waiting_full") }), " ",
        h("button", { type: "button", id: "waiting-join", class: "button primary",
          text: this.t("waiting_join", { n: this.currentTable().waiting || 0 }), onclick: () => this.send({ type: "waiting_join" }) }));
    } else {
      E.spectator.replaceChildren(h("span", { text: this.t("choose_seat") }));
    }
  }

  sendOptions() {
    this.options = { ...this.options, auto_muck: this.el.autoMuck.checked, straddle: this.el.straddle.checked,
      run_twice: this.el.runTwice.checked };
    this.send({ type: "options", auto_muck: this.options.auto_muck, straddle: this.options.straddle,
      run_twice: this.options.run_twice });
  }

  /** The player's money at this table from the server (bounds, wallet, top-up room), or null if unavailable. */
  async fetchMoney() {
    if (!this.moneyUrl) return null;
    try {
      const answer = await fetch(this.moneyUrl, {
        credentials: "same-origin", headers: { Accept: "application/json" }, signal: AbortSignal.timeout(4000),
      });
      return answer.ok ? await answer.json() : null;
    } catch (e) {
      return null; // the box opens with the table's own bounds
    }
  }

  showDialogError(el, text) {
    el.textContent = text;
    el.hidden = !text;
  }

  /** A typed amount checked against [min, max] and the wallet: {amount} or {error} in words. */
  checkAmount(text, { min, max, wallet, belowKey, aboveKey }) {
    const typed = parseAmount(text);
    if (typed === null) return { error: this.t("not_an_amount", { example: formatNumber(min) }) };
    const amount = roundDownToChip(typed, this.chip());
    if (amount < min) return { error: this.t(belowKey, { amount: this.money(min) }) };
    if (amount > max) return { error: this.t(aboveKey, { amount: this.money(max) }) };
    if (Number.isFinite(wallet) && amount > wallet) return { error: this.t("over_wallet", { amount: this.money(wallet) }) };
    return { amount };
  }

  /** What a box offers first: as much as the wallet affords, within [min, max]. */
  defaultAmount(min, max, wallet) {
    const affordable = Number.isFinite(wallet) ? Math.min(max, wallet) : max;
    return roundDownToChip(Math.max(min, affordable), this.chip());
  }

  // The box opens once the player's bounds and wallet are known (a moment), so that what they type is never
  // replaced by a default arriving late.
  async openBuyIn(seatNumber) {
    const table = this.currentTable();
    const E = this.el;
    const offer = await this.fetchMoney();
    if (this.me) return; // seated meanwhile (another tab)
    this.buyInSeat = seatNumber;
    this.buyInOffer = offer || { min: table.min_buy_in, max: table.max_buy_in, table_min: table.min_buy_in, wallet: NaN };
    E.buyInTitle.textContent = this.t("buy_in_title", { seat: seatNumber });
    E.buyInUnit.textContent = this.currency() === "eur" ? "€" : "";
    E.buyInWait.checked = true;
    this.fillBuyIn();
    if (E.buyIn.showModal) E.buyIn.showModal();
    else E.buyIn.setAttribute("open", "");
    E.buyInAmount.focus();
    E.buyInAmount.select();
  }

  fillBuyIn() {
    const E = this.el;
    const { min, max, table_min: tableMin, wallet } = this.buyInOffer;
    const chip = this.chip();
    E.buyInRange.textContent = this.t("buy_in_range", { min: this.money(min), max: this.money(max) });
    E.buyInRejoin.hidden = !(min > tableMin);
    E.buyInRejoin.textContent = this.t("buy_in_rejoin", { amount: this.money(min) });
    E.buyInWallet.hidden = !Number.isFinite(wallet);
    E.buyInWallet.textContent = this.t("wallet", { amount: this.money(wallet) });
    E.buyInSlider.min = "0";
    E.buyInSlider.max = String(Math.max(0, Math.ceil((max - min) / chip)));
    E.buyInSlider.step = "1";
    const amount = this.defaultAmount(min, max, wallet);
    E.buyInSlider.value = String(amount >= max ? E.buyInSlider.max : Math.round((amount - min) / chip));
    E.buyInAmount.value = formatNumber(amount);
    const short = Number.isFinite(wallet) && wallet < min;
    this.showDialogError(E.buyInError, short ? this.t("wallet_short", { wallet: this.money(wallet), min: this.money(min) }) : "");
    if (short) E.buyInError.append(" ", h("a", { href: this.cashierUrl, text: this.t("to_cashier") }));
    E.buyInConfirm.disabled = short;
  }

  buyInFromSlider() {
    const { min, max } = this.buyInOffer;
    return Math.min(max, min + Number(this.el.buyInSlider.value) * this.chip());
  }

  confirmBuyIn() {
    const E = this.el;
    const checked = this.checkAmount(E.buyInAmount.value, {
      ...this.buyInOffer, belowKey: "buy_in_below_min", aboveKey: "buy_in_above_max",
    });
    if (checked.error) {
      this.showDialogError(E.buyInError, checked.error);
      E.buyInAmount.focus();
      return;
    }
    const post = E.buyInNow.checked ? "now" : "wait_bb";
    if (this.send({ type: "join", seat: this.buyInSeat, buy_in: checked.amount, post })) E.buyIn.close();
  }

  /** Top up between hands, or (`rebuy`) add chips after going broke and sit back in once they are there. */
  async openTopUp({ rebuy = false } = {}) {
    if (!this.me) return;
    const offer = await this.fetchMoney();
    const me = this.me;
    if (!me) return;
    const E = this.el;
    const table = this.currentTable();
    const chip = this.chip();
    const room = roundDownToChip(Math.max(0, table.max_buy_in - (me.stack || 0)), chip);
    const known = offer && offer.top_up_max !== null;
    this.topUpOffer = {
      rebuy, max: known ? roundDownToChip(offer.top_up_max, chip) : room, wallet: known ? offer.wallet : NaN,
      min: this.topUpMin(rebuy, room),
    };
    E.topUpTitle.textContent = this.t(rebuy ? "rebuy_title" : "top_up_title");
    E.topUpHelp.textContent = this.t(rebuy ? "rebuy_help" : "top_up_between_hands");
    E.topUpPost.hidden = !rebuy;
    E.topUpWait.checked = true;
    E.topUpUnit.textContent = this.currency() === "eur" ? "€" : "";
    this.fillTopUp();
    if (E.topUp.showModal) E.topUp.showModal();
    else E.topUp.setAttribute("open", "");
    E.topUpAmount.focus();
    E.topUpAmount.select();
  }

  /** A rebuy brings the stack back to at least the table's minimum buy-in; a top-up adds at least a chip. */
  topUpMin(rebuy, room) {
    const chip = this.chip();
    const stack = (this.me && this.me.stack) || 0;
    const wanted = rebuy ? (this.currentTable().min_buy_in || 0) - stack : chip;
    return Math.min(room, Math.max(chip, roundDownToChip(wanted, chip)));
  }

  fillTopUp() {
    const E = this.el;
    const { min, max, wallet } = this.topUpOffer;
    E.topUpRange.textContent = this.t("top_up_range", { max: this.money(max) });
    E.topUpWallet.hidden = !Number.isFinite(wallet);
    E.topUpWallet.textContent = this.t("wallet", { amount: this.money(wallet) });
    E.topUpAmount.value = formatNumber(this.defaultAmount(min, max, wallet));
    E.topUpAmount.dataset.max = String(max);
    const short = max < min || max <= 0;
    const walletShort = short && Number.isFinite(wallet) && wallet < min;
    let problem = "";
    if (walletShort) problem = this.t("top_up_short", { wallet: this.money(wallet), min: this.money(min) });
    else if (short) problem = this.t("top_up_above", { amount: this.money(Math.max(0, max)) });
    this.showDialogError(E.topUpError, problem);
    if (walletShort) E.topUpError.append(" ", h("a", { href: this.cashierUrl, text: this.t("to_cashier") }));
    E.topUpConfirm.disabled = short;
  }

  confirmTopUp() {
    const E = this.el;
    const offer = this.topUpOffer;
    const checked = this.checkAmount(E.topUpAmount.value, { ...offer, belowKey: "top_up_below", aboveKey: "top_up_above" });
    if (checked.error) {
      this.showDialogError(E.topUpError, checked.error);
      E.topUpAmount.focus();
      return;
    }
    // A rebuy sits the player back in with the same change (the chips and the return are one step).
    const message = { type: "top_up", amount: checked.amount };
    if (offer.rebuy) message.sit_in = E.topUpNow.checked ? "now" : "wait_bb";
    if (!this.send(message)) return;
    E.topUp.close();
  }

  // ----- chat, events, last hands -------------------------------------------------------------------------------
  sendChat() {
    const text = this.el.chatInput.value.trim();
    if (!text) return;
    if (this.send({ type: "chat", text })) this.el.chatInput.value = "";
  }

  /** A seat's player by name: `names` (seat -> name) first, for a hand whose players may have left since. */
  seatName(seatNumber, names = null) {
    if (names && names.has(seatNumber)) return names.get(seatNumber);
    const seat = this.state && this.state.seats.find((s) => s.seat === seatNumber);
    return (seat && seat.player && seat.player.name) || this.t("seat_n", { n: seatNumber });
  }

  /**
   * A hand ended: keep its end on the felt until the next deal (the server waits a few seconds before dealing):
   * the cards shown at their seats with the hands' names, each pot's gross, rake and winners, what each seat won.
   * `ev` is the `hand_ended` event, which carries the board, the shown hands and the pots (seats from 1).
   */
  finishHand(ev) {
    const handId = ev.hand_id ?? (this.lastHand && this.lastHand.id);
    const seats = this.handSeats && this.handSeats.handId === handId ? this.handSeats.seats : (this.state ? this.state.seats : []);
    const pots = Array.isArray(ev.pots) ? ev.pots : [];
    const won = new Map();
    for (const pot of pots) {
      for (const w of winnerList(pot.winners)) won.set(w.seat, (won.get(w.seat) || 0) + (w.amount || 0));
    }
    const me = this.me && seats.find((s) => s.seat === this.me.seat);
    const board = Array.isArray(ev.board) ? ev.board : (this.lastHand && this.lastHand.board) || [];
    this.finished = {
      handId,
      board,
      bombPot: (this.lastHand && this.lastHand.id === handId && this.lastHand.bomb_pot) || 0,
      boards: Array.isArray(ev.boards) && ev.boards.length ? ev.boards : [board],
      shown: new Map(Object.entries(ev.shown || {}).map(([seat, cards]) => [Number(seat), cards])),
      pots,
      won,
      names: new Map(seats.filter((s) => s.player).map((s) => [s.seat, s.player.name])),
      folded: new Set(seats.filter((s) => s.status === "folded").map((s) => s.seat)),
      mine: me && Array.isArray(me.cards) && me.cards.length ? me.cards : null,
    };
    if (this.state) {
      this.renderCenter();
      this.renderSeats();
    }
  }

  chatLine(kind, name, text) {
    const log = this.el.chatLog;
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
    const line = h("div", { class: `chat-line ${kind}` }, name ? h("b", { class: "who", text: name }) : null, name ? " " : null, h("span", { text }));
    log.append(line);
    while (log.childElementCount > 200) log.firstElementChild.remove();
    if (atBottom) log.scrollTop = log.scrollHeight;
  }

  /** The table's last chat lines, sent on every (re)connection: they replace the players' lines shown so far
   * (the dealer's lines stay), so a reconnection shows no line twice. */
  chatHistory(lines) {
    for (const old of this.el.chatLog.querySelectorAll(".chat-line.player")) old.remove();
    const log = this.el.chatLog;
    const first = log.firstElementChild;
    for (const line of lines) {
      const player = line.player || {};
      const who = typeof player === "string" ? player : player.name;
      const el = h("div", { class: `chat-line player${player.bot ? " bot" : ""}` },
        h("b", { class: "who", text: `${who || "?"}:` }), " ", h("span", { text: line.text || "" }));
      log.insertBefore(el, first);
    }
    log.scrollTop = log.scrollHeight;
  }

  dealerLine(text) {
    this.chatLine("dealer", this.t("dealer") + ":", text);
  }

  /** What the server sends this player alone: their place on a waiting list, a seat offered, a seat lost. */
  onPersonal(msg) {
    const here = msg.table === (this.table.id ?? Number(this.root.dataset.tableId));
    if (msg.type === "waiting" && here) {
      this.waiting = msg.position ? msg : null;
    } else if (msg.type === "seat_offer") {
      if (here) {
        this.waiting = { ...(this.waiting || {}), offered_seat: msg.seat, expires_at: msg.expires_at };
        // The bar under the table says so and counts the seconds down.
        clearInterval(this.offerTicker);
        this.offerTicker = setInterval(() => {
          if (!this.waiting || !this.waiting.offered_seat || this.me) clearInterval(this.offerTicker);
          else this.renderSpectatorBar();
        }, 1000);
      } else {
        this.toast(this.t("seat_offer_elsewhere", { table: msg.table_name, n: msg.seconds }));
      }
    } else if (["seat_offer_expired", "waiting_dropped", "removed"].includes(msg.type)) {
      if (here) this.waiting = null;
      if (msg.message) this.toast(msg.message);
    }
    if (this.state) this.renderSpectatorBar();
  }

  onEvent(ev) {
    // A chat line names its player as a string; other events name a seat or carry a player object.
    const name = (e) => e.name || (typeof e.player === "string" ? e.player : e.player && e.player.name)
      || (Number.isInteger(e.seat) ? this.seatName(e.seat) : "");
    switch (ev.event) {
      case "chat":
        this.chatLine(ev.bot || (ev.player && ev.player.bot) ? "player bot" : "player", (name(ev) || "?") + ":", ev.text || "");
        break;
      case "dealt":
        this.lastActions.clear();
        this.awards = [];
        if (ev.number ?? ev.hand_number) this.dealerLine(this.t("new_hand", { number: ev.number ?? ev.hand_number }));
        break;
      case "acted": {
        const action = ev.action;
        if (Number.isInteger(ev.seat) && FALLBACK[`last_${action}`]) this.lastActions.set(ev.seat, action);
        const cards = Array.isArray(ev.cards) ? ev.cards.map(cardText).join(" ") : "";
        if (FALLBACK[`acted_${action}`]) {
          this.dealerLine(this.t(`acted_${action}`, { name: name(ev), amount: this.short(ev.amount || 0), cards }));
        }
        if (this.state) this.renderSeats();
        break;
      }
      case "street": {
        this.lastActions.clear();
        const board = Array.isArray(ev.board) ? ev.board : Array.isArray(ev.cards) ? ev.cards : [];
        let street = ev.street ? this.t(`street_${ev.street}`) : "";
        if (street && ev.run) street = `${this.t("run_n", { n: ev.run })} · ${street}`;
        if (street) this.dealerLine(`${street}${board.length ? ": " + board.map(cardText).join(" ") : ""}`);
        if (this.state) this.renderSeats();
        break;
      }
      case "showdown": {
        const shown = Array.isArray(ev.hands) ? ev.hands : Array.isArray(ev.seats) ? ev.seats : [ev];
        for (const s of shown) {
          if (Array.isArray(s.cards) && s.cards.length) {
            this.dealerLine(this.t("shows", { name: name(s), cards: s.cards.map(cardText).join(" ") }) + (s.description ? ` (${s.description})` : ""));
          }
        }
        break;
      }
      case "posted":
        if (ev.amount) this.dealerLine(this.t("posted", { name: name(ev), amount: this.short(ev.amount) }));
        break;
      case "mucked":
        this.dealerLine(this.t("acted_muck", { name: name(ev) }));
        break;
      case "uncalled_returned":
        if (ev.amount) this.dealerLine(this.t("returned", { name: name(ev), amount: this.short(ev.amount) }));
        break;
      case "pot_awarded": {
        const winners = ev.winners !== undefined ? winnerList(ev.winners) : [ev];
        for (const w of winners) {
          if (!w.amount) continue;
          const who = name(w);
          this.awards.push({ name: who, amount: w.amount, seat: w.seat });
          this.dealerLine(this.t("wins", { name: who, amount: this.money(w.amount) }) + (w.description ? ` (${w.description})` : ""));
        }
        break;
      }
      case "hand_ended":
        this.addHistory(ev);
        this.finishHand(ev);
        break;
      case "moved":
        this.dealerLine(this.t("t_moved", { name: ev.player, n: ev.table_number }));
        if (this.authenticated && ev.player === this.userName) this.follow(ev.table);
        break;
      case "places":
        for (const p of ev.places || []) {
          const prize = p.prize ? formatMoney(p.prize, ev.currency) : "";
          const line = p.provisional ? "t_out_provisional" : prize ? "t_finished_prize" : "t_finished";
          this.dealerLine(this.t(line, { name: p.player, place: p.place, prize }));
          if (this.authenticated && p.player === this.userName) this.showResult(p, ev.currency);
        }
        break;
      case "seat":
        if (ev.removed && FALLBACK[`removed_${ev.removed}`]) this.dealerLine(this.t(`removed_${ev.removed}`, { name: ev.name || "" }));
        break;
      case "announcement":
        if (ev.text) this.dealerLine(this.t("staff_says", { text: ev.text }));
        break;
      case "paused":
        this.dealerLine(this.t(ev.paused ? "table_paused" : "table_resumed") + (ev.text ? ` ${ev.text}` : ""));
        break;
      case "hand_cancelled":
        this.finished = null;
        this.awards = [];
        this.dealerLine(this.t("hand_cancelled", { number: ev.hand_id ?? ev.number ?? "" }));
        this.history.unshift({ number: ev.hand_id ?? ev.number ?? "", pot: 0, winners: [], board: [], handId: null, cancelled: true });
        this.history = this.history.slice(0, 10);
        this.renderHistory();
        break;
      default:
        break;
    }
  }

  /** Moved to another table of the tournament: the page goes there (the server seated you already). */
  follow(tableId) {
    this.toast(this.t("t_you_moved"));
    this.followTo = `/tables/${tableId}/`;
    setTimeout(() => { window.location.assign(this.followTo); }, 1200);
  }

  showResult(place, currency) {
    const E = this.el;
    const text = place.provisional
      ? this.t("t_you_out_provisional", { place: place.place })
      : place.prize
      ? this.t("t_you_finished_prize", { place: place.place, prize: formatMoney(place.prize, currency) })
      : this.t("t_you_finished", { place: place.place });
    const info = this.state && this.state.tournament;
    E.tournamentResult.replaceChildren(h("strong", { text }),
      info ? h("a", { href: `/tournaments/${info.id}/`, text: " " + this.t("t_see_standings") }) : "");
    E.tournamentResult.hidden = false;
  }

  addHistory(ev) {
    const pots = Array.isArray(ev.pots) ? ev.pots : [];
    let winners = ev.winners !== undefined ? winnerList(ev.winners) : pots.flatMap((p) => winnerList(p.winners));
    if (!winners.length) winners = this.awards;
    const byName = new Map();
    for (const w of winners) {
      const who = w.name || (w.player && w.player.name) || (Number.isInteger(w.seat) ? this.seatName(w.seat) : "?");
      byName.set(who, (byName.get(who) || 0) + (w.amount || 0));
    }
    let pot = ev.pot ?? ev.total ?? null;
    if (pot === null && pots.length) pot = pots.reduce((s, p) => s + (p.amount || 0), 0);
    if (pot === null) pot = winners.reduce((s, w) => s + (w.amount || 0), 0);
    const handId = ev.hand_id ?? (ev.hand && ev.hand.id);
    const number = handId ?? (this.lastHand && (this.lastHand.id ?? this.lastHand.number)) ?? "";
    const board = Array.isArray(ev.board) ? ev.board : this.lastHand && this.lastHand.board ? this.lastHand.board : [];
    if (this.lastHand && Array.isArray(ev.board) && ev.board.length) this.lastHand.board = ev.board;
    const replayUrl = handId !== undefined && this.me ? `/hands/${handId}/` : null;
    const boards = Array.isArray(ev.boards) && ev.boards.length > 1 ? ev.boards : [board];
    this.history.unshift({ number, pot, winners: [...byName.entries()], board, boards, handId, replayUrl });
    this.history = this.history.slice(0, 10);
    this.awards = [];
    this.renderHistory();
  }

  renderHistory() {
    const items = this.history.map((entry) => h("li", { "data-hand": entry.number },
      h("div", { class: "hh-top" },
        h("span", { class: "hh-number", text: this.t("hand_number", { number: entry.number }) }),
        h("span", { class: "hh-pot", text: entry.cancelled ? "" : this.money(entry.pot) })),
      ...(entry.boards || [entry.board]).filter((b) => b.length).map((b) => h("div", { class: "hh-board" }, b.map((c) => cardEl(c, "mini")))),
      entry.cancelled ? h("div", { class: "hh-cancelled", text: this.t("hand_cancelled_short") }) : null,
      h("div", { class: "hh-winners" }, entry.winners.map(([who, amount]) => h("span", {
        class: `hh-winner${who === this.userName ? " me" : ""}`, text: this.t("hand_won", { name: who, amount: this.short(amount) }),
      }))), this.historyLinks(entry)));
    this.el.history.replaceChildren(...(items.length ? items : [h("li", { class: "empty", text: this.t("no_hands_yet") })]));
  }

  // The last hands survive a reload: the table's recent hands from the hand histories (/api/tables/<id>/last-hands/),
  // each with the deck check and, for a hand you played, the replayer (docs/history.md).
  async loadLastHands() {
    const id = this.table.id ?? this.root.dataset.tableId;
    try {
      const response = await fetch(`/api/tables/${id}/last-hands/`, { credentials: "same-origin" });
      if (!response.ok) return;
      const { hands } = await response.json();
      const known = new Set(this.history.map((entry) => String(entry.handId)));
      const older = hands.filter((hand) => !known.has(String(hand.hand_id))).map((hand) => ({
        number: hand.hand_id, pot: hand.pot, board: hand.board, boards: hand.boards, handId: hand.hand_id,
        winners: hand.winners.map((w) => [w.name, w.amount]), replayUrl: hand.replay_url || null,
      }));
      this.history = [...this.history, ...older].slice(0, 10);
      this.renderHistory();
    } catch (e) { /* the panel fills from the table's events */ }
  }

  historyLinks(entry) {
    if (entry.handId === undefined || entry.handId === null) return null;
    return h("div", { class: "hh-links" },
      h("a", { href: `/hands/${entry.handId}/verify/`, class: "hh-verify", text: this.t("hand_verify") }),
      entry.replayUrl ? [" · ", h("a", { href: entry.replayUrl, class: "hh-replay", text: this.t("hand_replay") })] : null);
  }

  toast(message) {
    const el = this.el.toast;
    el.textContent = message;
    el.hidden = false;
    el.classList.remove("leaving");
    clearTimeout(this.toastHandle);
    this.toastHandle = setTimeout(() => {
      el.classList.add("leaving");
      this.toastHandle = setTimeout(() => { el.hidden = true; }, 300);
    }, 4000);
  }
}

// ---------------------------------------------------------------------------------------------------------------

function start() {
  const root = document.getElementById("table-app");
  if (!root || root.dataset.started) return null;
  root.dataset.started = "1";
  const page = new TablePage(root, {
    table: readJSON("table-data", {}),
    wsPath: root.dataset.wsPath,
    userName: root.dataset.userName,
    authenticated: root.dataset.authenticated === "true",
    loginUrl: root.dataset.loginUrl,
    moneyUrl: root.dataset.moneyUrl,
    cashierUrl: root.dataset.cashierUrl,
    strings: readJSON("i18n", {}),
    WebSocketImpl: window.PokerWebSocket,
  });
  window.tablePage = page;
  return page;
}

if (typeof document !== "undefined") start();
