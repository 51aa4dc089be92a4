// A fake table server for looking at the table page without one: it plays the server side of PROTOCOL.md well
// enough to show every part of the page (a tiny, forgiving game loop with house bots that check and call).
// Loaded by table.html before static/js/table.js, it sets window.PokerWebSocket, fills in the page's config and
// exposes window.harness for scripts (Playwright) to look at what the page sent and to push messages to it.
//
// Query parameters of table.html:
//   scenario = turn (default) | bet | waiting | showdown | allin | spectator | seat | out | fl
//   seats = 2..10 (default 6)   game = holdem | omaha | omaha_hilo   currency = eur | play
//   lang = en | it              auto = 0 (bots do not play: a still page for screenshots)
//   user = a name (default "giulia"; the scenario "spectator" makes it anonymous)

import { IT } from "./i18n_it.js";

const params = new URLSearchParams(location.search);
const scenario = params.get("scenario") || "turn";
const seatCount = Math.max(2, Math.min(10, Number(params.get("seats") || (scenario === "fl" ? 9 : 6))));
const game = params.get("game") || "holdem";
const currency = params.get("currency") || (scenario === "fl" ? "play" : "eur");
const lang = params.get("lang") || "en";
const auto = params.get("auto") !== "0";
const anonymous = scenario === "spectator";
const userName = anonymous ? "" : params.get("user") || "giulia";
const structure = scenario === "fl" ? "fl" : game === "holdem" ? "nl" : "pl";

const TABLE = currency === "eur"
  ? { id: 7, name: "Roma", game, structure, currency, chip: 1, small_blind: 25, big_blind: 50, min_buy_in: 1500,
    max_buy_in: 5000, seats: seatCount, players: 0, bots: 0, stakes: "NL50" }
  : { id: 7, name: "Allenamento Milano", game, structure, currency, chip: 100, small_blind: 1000, big_blind: 2000,
    min_buy_in: 60000, max_buy_in: 200000, seats: seatCount, players: 0, bots: 0, stakes: "NL20" };

// ----- the page's config, as the Django template would write it --------------------------------------------------
document.documentElement.lang = lang;
const app = document.getElementById("table-app");
app.dataset.wsPath = `/ws/tables/${TABLE.id}/`;
app.dataset.userName = userName;
app.dataset.authenticated = anonymous ? "false" : "true";
app.dataset.loginUrl = `/accounts/login/?next=${encodeURIComponent(`/tables/${TABLE.id}/`)}`;
document.getElementById("table-data").textContent = JSON.stringify(TABLE);
if (lang === "it") document.getElementById("i18n").textContent = JSON.stringify(IT);

// ----- a small world -----------------------------------------------------------------------------------------
const NAMES = ["Marco_88", "lucia.r", "Aldo", "enzo", "Sara", "Bea", "Fede", "NinoZ", "Carla", "Tino"];
const BOTS = new Set(["Aldo", "Bea", "Tino"]);
const RANKS = "23456789TJQKA";
const SUITS = "shdc";
const hex = (n) => Array.from({ length: n }, (_, i) => "0123456789abcdef"[(i * 7 + n * 3 + i * i) % 16]).join("");

const w = {
  seq: 100, handNo: 4817, handId: 90311, hand: null, seats: [], board: [], pots: [], button: 1, toAct: null,
  deadline: 0, legal: [], deck: [], lastRaise: 0, acted: new Set(), options: { auto_muck: true, straddle: false },
  lastStreetBet: 0,
};
const mine = () => w.seats.find((s) => s.player && s.player.name === userName);
const bb = TABLE.big_blind;

function seatList() {
  return w.seats;
}

function setup() {
  w.seats = [];
  for (let i = 1; i <= seatCount; i++) {
    w.seats.push({ seat: i, player: null, stack: 0, bet: 0, status: "empty", cards: null, time_bank_ms: 30000 });
  }
  const fill = (idx, name, stack, status = "active") => {
    const s = w.seats[idx];
    s.player = { name, bot: BOTS.has(name) };
    s.stack = stack;
    s.status = status;
  };
  const meIdx = Math.min(2, seatCount - 1);
  let n = 0;
  for (let i = 0; i < seatCount; i++) {
    if (i === meIdx) {
      if (!["spectator", "seat"].includes(scenario)) fill(i, userName, TABLE.max_buy_in - 7 * bb);
      continue;
    }
    if (scenario === "seat" && i % 3 === 1) continue; // a few empty seats to sit in
    if (seatCount >= 6 && i === seatCount - 1 && scenario !== "fl") continue; // one empty seat
    const name = NAMES[n++ % NAMES.length];
    fill(i, name, Math.round(TABLE.max_buy_in * (0.4 + ((i * 37) % 90) / 100)) - (i * 13) % 50);
  }
  if (seatCount >= 6) {
    const out = w.seats.find((s, i) => s.player && i === 1);
    if (out && scenario !== "fl") out.status = "sitting_out";
    const wait = w.seats.find((s, i) => s.player && i === 4);
    if (wait && !["turn", "bet"].includes(scenario)) wait.status = "waiting_bb";
  }
  if (scenario === "out") mine().status = "sitting_out";
}

function shuffleDeck() {
  const deck = [];
  for (const r of RANKS) for (const s of SUITS) deck.push(r + s);
  let seed = w.handNo * 7919;
  for (let i = deck.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

const holeCount = game === "holdem" ? 2 : 4;
const inHand = (s) => s.player && (s.status === "active" || s.status === "all_in");
const canAct = (s) => s.player && s.status === "active";
const maxBet = () => Math.max(0, ...w.seats.map((s) => s.bet));
const next = (from, pred) => {
  for (let k = 1; k <= seatCount; k++) {
    const s = w.seats[(from - 1 + k) % seatCount];
    if (pred(s)) return s.seat;
  }
  return null;
};

function startHand() {
  w.handNo += 1;
  w.handId += 1;
  for (const s of w.seats) {
    s.bet = 0;
    s.cards = null;
    s.hole = null;
    s.shown = false;
    if (s.player && (s.status === "folded" || s.status === "all_in")) s.status = "active";
    if (s.player && s.status === "waiting_bb") s.status = "active";
    if (s.player && s.stack <= 0) s.status = "sitting_out";
  }
  if (w.seats.filter(canAct).length < 2) {
    w.hand = null;
    return;
  }
  w.deck = shuffleDeck();
  w.button = next(w.button, canAct);
  for (const s of w.seats) if (canAct(s)) s.hole = w.deck.splice(0, holeCount);
  const sb = next(w.button, canAct);
  const bbSeat = next(sb, canAct);
  post(sb, TABLE.small_blind);
  post(bbSeat, bb);
  w.pendingPosts = [{ seat: sb, kind: "small_blind", amount: TABLE.small_blind }, { seat: bbSeat, kind: "big_blind", amount: bb }];
  w.board = [];
  w.pots = [];
  w.lastRaise = bb;
  w.acted = new Set();
  w.hand = { id: w.handId, number: w.handNo, action_no: 0, street: "preflop", deck_commitment: hex(64) };
  event("dealt", { seats: w.seats.filter((s) => s.hole).map((s) => s.seat), count: holeCount });
  for (const p of w.pendingPosts) event("posted", p);
  setTurn(next(bbSeat, canAct));
}

function post(seatNo, amount) {
  const s = w.seats[seatNo - 1];
  const paid = Math.min(amount, s.stack);
  s.stack -= paid;
  s.bet += paid;
  if (!s.stack) s.status = "all_in";
}

function setTurn(seatNo) {
  w.toAct = seatNo;
  w.deadline = Date.now() + 15000;
  clearTimeout(w.botTimer);
  const s = seatNo && w.seats[seatNo - 1];
  if (s && s.player.name !== userName && auto) w.botTimer = setTimeout(() => botAct(s), 900 + Math.random() * 900);
}

function legalFor(s) {
  if (!w.hand || !s || w.toAct !== s.seat) {
    if (w.showOrMuck && s && w.showOrMuck === s.seat) return [{ action: "show", min: 0, max: 0 }, { action: "muck", min: 0, max: 0 }];
    return [];
  }
  const top = maxBet();
  const cost = Math.min(top - s.bet, s.stack);
  const all = s.bet + s.stack;
  const legal = [{ action: "fold", min: 0, max: 0 }];
  if (cost === 0) legal.push({ action: "check", min: 0, max: 0 });
  else legal.push({ action: "call", min: s.bet + cost, max: s.bet + cost }); // "to" amounts, as the engine gives
  const fixed = structure === "fl" ? (["turn", "river"].includes(w.hand.street) ? 2 * bb : bb) : null;
  if (all > top) {
    let min = top === 0 ? bb : top + w.lastRaise;
    let max = all;
    if (fixed) min = max = Math.min(all, top + fixed);
    if (structure === "pl") max = Math.min(all, top + potTotal() + cost);
    if (min >= all) legal.push({ action: "all_in", min: all, max: all });
    else legal.push({ action: top === 0 ? "bet" : "raise", min, max });
  }
  return legal;
}

const potTotal = () => w.pots.reduce((a, p) => a + p.amount, 0) + w.seats.reduce((a, s) => a + s.bet, 0);

function apply(s, action, amount) {
  const top = maxBet();
  const before = s.bet;
  if (action === "fold") s.status = "folded";
  else if (action === "call") post(s.seat, top - s.bet);
  else if (action === "bet" || action === "raise") {
    post(s.seat, amount - s.bet);
    w.lastRaise = Math.max(w.lastRaise, amount - top);
    w.acted = new Set();
  } else if (action === "all_in") {
    post(s.seat, s.stack);
    if (s.bet > top) w.acted = new Set();
  }
  w.acted.add(s.seat);
  w.hand.action_no += 1;
  event("acted", { seat: s.seat, action, amount: s.bet - before ? s.bet : 0 });
  advance(s.seat);
}

function advance(from) {
  const live = w.seats.filter(inHand);
  if (live.length === 1) return finish([live[0]]);
  const top = maxBet();
  const pending = w.seats.filter((s) => canAct(s) && (!w.acted.has(s.seat) || s.bet < top));
  if (pending.length && w.seats.filter(canAct).length > (top > 0 || pending.length > 1 ? 0 : 1)) {
    setTurn(next(from, (s) => canAct(s) && (!w.acted.has(s.seat) || s.bet < top)));
    return send(stateFor());
  }
  collect();
  if (w.hand.street === "river" || w.seats.filter(canAct).length < 2 && w.board.length === 5) return showdown();
  const street = { preflop: "flop", flop: "turn", turn: "river" }[w.hand.street];
  w.deck.shift();
  w.board.push(...w.deck.splice(0, street === "flop" ? 3 : 1));
  w.hand.street = street;
  w.acted = new Set();
  w.lastRaise = bb;
  event("street", { street, board: [...w.board] });
  if (w.seats.filter(canAct).length < 2) return advance(from);
  setTurn(next(w.button, canAct));
  send(stateFor());
}

function collect() {
  const total = w.seats.reduce((a, s) => a + s.bet, 0);
  if (!w.pots.length) w.pots.push({ amount: 0, rake: 0, net: 0, eligible: [] });
  w.pots[0].amount += total;
  for (const s of w.seats) s.bet = 0;
  const raked = w.board.length >= 3 || w.hand.street !== "preflop";
  w.pots[0].rake = raked ? Math.min(Math.floor(w.pots[0].amount / 18), currency === "eur" ? 300 : 30000) : 0;
  w.pots[0].net = w.pots[0].amount - w.pots[0].rake;
  w.pots[0].eligible = w.seats.filter(inHand).map((s) => s.seat);
}

function showdown() {
  w.toAct = null;
  w.hand.street = "showdown";
  const live = w.seats.filter(inHand);
  while (w.board.length < 5) w.board.push(w.deck.shift());
  for (const s of live) {
    s.cards = s.hole;
    s.shown = true;
  }
  for (const s of live) event("showdown", { seat: s.seat, cards: s.hole }); // one event per hand shown, as the engine does
  const winner = live[(w.handNo * 5) % live.length];
  finish([winner]);
}

function finish(winners) {
  clearTimeout(w.botTimer);
  collect();
  w.toAct = null;
  const pot = w.pots[0];
  const share = Math.floor(pot.net / winners.length);
  const won = Object.fromEntries(winners.map((s) => [String(s.seat), share]));
  for (const s of winners) s.stack += share;
  // The engine's formats: winners as {"<seat>": amount}; hand_ended with the hand summary.
  event("pot_awarded", { pot: 0, amount: pot.amount, rake: pot.rake, net: pot.net, eligible: pot.eligible, winners: won });
  const me = mine();
  if (winners.length === 1 && winners[0] === me && w.hand.street !== "showdown") w.showOrMuck = me.seat;
  event("hand_ended", {
    hand_id: w.hand.id, number: w.hand.number, rake: pot.rake, board: [...w.board],
    stacks: Object.fromEntries(w.seats.filter((s) => s.player).map((s) => [String(s.seat), s.stack])),
    shown: Object.fromEntries(w.seats.filter((s) => s.shown).map((s) => [String(s.seat), s.hole])),
    pots: [{ amount: pot.amount, rake: pot.rake, net: pot.net, eligible: pot.eligible, winners: won }],
    deck_commitment: w.hand.deck_commitment,
  });
  send(stateFor());
  setTimeout(() => {
    w.showOrMuck = null;
    if (auto) startHand();
    send(stateFor());
  }, 2500);
}

function botAct(s) {
  if (!w.hand || w.toAct !== s.seat) return;
  const legal = legalFor(s);
  const has = (a) => legal.find((e) => e.action === a);
  const roll = (w.handNo * 31 + w.hand.action_no * 17 + s.seat * 7) % 10;
  if (has("check")) {
    if (roll === 0 && has("bet")) return apply(s, "bet", has("bet").min);
    return apply(s, "check");
  }
  if (roll <= 1) return apply(s, "fold");
  if (has("call")) return apply(s, "call");
  return apply(s, "fold");
}

// ----- scenarios: a hand already in progress ------------------------------------------------------------------
function scenarioSetup() {
  setup();
  if (scenario === "seat" || scenario === "out") {
    w.hand = null;
    return;
  }
  w.handNo += 1;
  w.deck = shuffleDeck();
  w.hand = { id: w.handId, number: w.handNo, action_no: 9, street: "flop", deck_commitment: hex(64) };
  w.button = next(seatCount, (s) => s.player && s.status === "active");
  for (const s of w.seats) if (canAct(s)) s.hole = w.deck.splice(0, holeCount);
  const me = mine();
  if (me) me.cards = me.hole;
  w.board = w.deck.splice(0, 3);
  const players = w.seats.filter(canAct);
  const folder = players.find((s) => s !== me);
  if (folder && players.length > 3) folder.status = "folded";
  w.pots = [{ amount: 7 * bb, rake: 0, net: 7 * bb, eligible: players.map((s) => s.seat) }];
  w.pots[0].rake = Math.floor(w.pots[0].amount / 18);
  w.pots[0].net = w.pots[0].amount - w.pots[0].rake;
  const others = players.filter((s) => s !== me && s.status === "active");
  if (scenario === "turn" || scenario === "fl") {
    const bettor = others[0];
    post(bettor.seat, structure === "fl" ? bb : 2 * bb);
    w.acted = new Set([bettor.seat]);
    w.lastRaise = bettor.bet;
    setTurn(me.seat);
  } else if (scenario === "bet") {
    w.acted = new Set();
    setTurn(me.seat);
  } else if (scenario === "waiting" || scenario === "spectator") {
    const bettor = others[0];
    post(bettor.seat, 3 * bb);
    w.lastRaise = 3 * bb;
    w.acted = new Set([bettor.seat]);
    setTurn(others[1] ? others[1].seat : bettor.seat);
  } else if (scenario === "allin") {
    w.hand.street = "turn";
    w.board.push(w.deck.shift());
    const shorty = others[0];
    post(shorty.seat, shorty.stack);
    w.pots = [
      { amount: 3600, rake: 54, net: 3546, eligible: players.map((s) => s.seat) },
      { amount: 1200, rake: 18, net: 1182, eligible: [me.seat, others[1].seat] },
    ];
    w.acted = new Set([shorty.seat]);
    setTurn(me.seat);
  } else if (scenario === "showdown") {
    w.hand.street = "river";
    w.board.push(w.deck.shift(), w.deck.shift());
    const opp = others[0];
    opp.cards = opp.hole;
    w.toAct = null;
    w.showOrMuck = me.seat;
  }
}

// ----- sending ------------------------------------------------------------------------------------------------
const sockets = new Set();
const sent = [];

function stateFor() {
  const me = mine();
  return {
    type: "state",
    seq: w.seq,
    server_time: new Date().toISOString(),
    table: { ...TABLE, players: w.seats.filter((s) => s.player).length, bots: w.seats.filter((s) => s.player && s.player.bot).length },
    hand: w.hand ? { ...w.hand } : null,
    seats: seatList().map((s) => ({
      seat: s.seat, player: s.player ? { ...s.player } : null, stack: s.stack, bet: s.bet, status: s.status,
      cards: s.player && s.hole && (s === me || s.shown) ? [...s.hole] : s.player && s.cards ? [...s.cards] : null,
      has_cards: !!(w.hand && s.hole && inHand(s)),
      time_bank_ms: s.player ? s.time_bank_ms : 0,
      sitting_out_next: !!s.sitOutNext,
      leaving: false,
    })),
    board: [...w.board],
    pots: w.pots.map((p) => ({ ...p })),
    button: w.button,
    to_act: w.toAct,
    remaining_ms: w.toAct ? Math.max(0, w.deadline - Date.now()) : null,
    legal: legalFor(me),
    options: { ...w.options },
  };
}

function send(message) {
  for (const ws of sockets) ws._deliver(message);
}

function event(name, data) {
  w.seq += 1;
  send({ type: "event", seq: w.seq, event: name, ...data });
}

function error(code, message) {
  for (const ws of sockets) ws._deliver({ type: "error", code, message, seq: w.seq });
}

function receive(message) {
  sent.push(message);
  const me = mine();
  switch (message.type) {
    case "sync":
      return send(stateFor());
    case "act": {
      if (!me) return error("not_seated", "You are not seated.");
      if (message.action === "show" || message.action === "muck") {
        if (w.showOrMuck !== me.seat) return error("not_your_turn", "It is not your turn.");
        w.showOrMuck = null;
        if (message.action === "show") me.shown = true;
        event("acted", { seat: me.seat, action: message.action, cards: message.action === "show" ? me.hole : undefined });
        return send(stateFor());
      }
      if (!w.hand || message.hand_id !== w.hand.id || message.action_no !== w.hand.action_no) {
        return error("stale", "That decision has passed.");
      }
      if (w.toAct !== me.seat) return error("not_your_turn", "It is not your turn.");
      const entry = legalFor(me).find((e) => e.action === message.action);
      if (!entry) return error("illegal", "That action is not allowed now.");
      if ((message.action === "bet" || message.action === "raise") &&
        (!Number.isInteger(message.amount) || message.amount < entry.min || message.amount > entry.max)) {
        return error("illegal_amount", "That amount is not allowed.");
      }
      return apply(me, message.action, message.amount);
    }
    case "join": {
      if (me) return error("already_seated", "You already have a seat here.");
      const seat = w.seats[message.seat - 1];
      if (!seat || seat.player) return error("seat_taken", "That seat is taken.");
      if (message.buy_in < TABLE.min_buy_in || message.buy_in > TABLE.max_buy_in) return error("buy_in", "Buy-in out of range.");
      Object.assign(seat, { player: { name: userName, bot: false }, stack: message.buy_in, bet: 0, status: "waiting_bb", time_bank_ms: 30000 });
      event("seat", { seat: seat.seat, name: userName });
      send(stateFor());
      if (!w.hand && auto) setTimeout(() => { startHand(); send(stateFor()); }, 1500);
      return;
    }
    case "sit_out":
      if (me) me.status = me.status === "active" && w.hand ? me.status : "sitting_out";
      if (me && w.hand && inHand(me)) me.sitOutNext = true;
      return send(stateFor());
    case "sit_in":
      if (me) me.status = message.post === "now" ? "active" : "waiting_bb";
      send(stateFor());
      if (!w.hand && auto) setTimeout(() => { startHand(); send(stateFor()); }, 1500);
      return;
    case "top_up":
      if (!me) return error("not_seated", "You are not seated.");
      if (w.hand && inHand(me)) return error("hand_in_play", "Top-ups are made between hands.");
      if (me.stack + message.amount > TABLE.max_buy_in) return error("top_up", "Above the table maximum.");
      me.stack += message.amount;
      return send(stateFor());
    case "leave":
      if (me) Object.assign(me, { player: null, stack: 0, bet: 0, status: "empty", cards: null, hole: null });
      event("seat", { seat: me && me.seat });
      return send(stateFor());
    case "options":
      w.options = { auto_muck: !!message.auto_muck, straddle: !!message.straddle };
      return send(stateFor());
    case "chat":
      return event("chat", { seat: me ? me.seat : null, name: userName, text: String(message.text).slice(0, 200) });
    default:
      return error("unknown", "Unknown message.");
  }
}

class FakeWebSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;

  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
    setTimeout(() => {
      if (harness.refuse) {
        this.readyState = 3;
        this.onclose?.({ code: 1006 });
        return;
      }
      this.readyState = 1;
      sockets.add(this);
      this.onopen?.({});
      this._deliver(stateFor());
      harness.connections += 1;
    }, 30);
  }

  send(text) {
    if (this.readyState !== 1) throw new Error("not open");
    const message = JSON.parse(text);
    setTimeout(() => receive(message), 40);
  }

  close(code = 1000) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    sockets.delete(this);
    setTimeout(() => this.onclose?.({ code }), 0);
  }

  _deliver(message) {
    if (this.readyState !== 1) return;
    const data = JSON.stringify(message);
    setTimeout(() => this.onmessage?.({ data }), 5);
  }
}

const harness = {
  sent, world: w, connections: 0, refuse: false,
  /** Push any message to the page as if the server sent it. */
  push(message) { send(message); },
  state() { return stateFor(); },
  /** Drop the connection (the page should show "Reconnecting…" and come back). */
  drop(code = 1006) { for (const ws of [...sockets]) ws.close(code); },
  /** Skip a seq number: the next event reaches the page after a gap, and the page should send `sync`. */
  gap() { w.seq += 2; event("chat", { name: "Sara", text: "gap" }); },
  error(message = "That amount is not allowed.") { error("illegal_amount", message); },
  start() { startHand(); send(stateFor()); },
};

scenarioSetup();
window.PokerWebSocket = FakeWebSocket;
window.harness = harness;
