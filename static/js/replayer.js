// The hand replayer (templates/history/replayer.html). It draws frames the server worked out
// (tables/history/frames.py: the table after each post, deal, action, street, show and pot collected) with the table
// page's CSS classes, so a replayed hand looks like the table did. Other players' cards appear only where the server
// put them: once shown at the showdown. No build step: a plain ES module.
//
// The page gives it: #replayer-app (data-url: the frames' JSON), #i18n (translated strings, keys as in FALLBACK).
// Test hooks: #replay-step[data-index], [data-control=first|back|play|pause|forward|last], #replay-slider,
// #replay-description, .seat[data-seat] (.stack[data-amount], .bet[data-amount], .pcard[data-card]), #board,
// #pots .pot[data-amount][data-rake][data-net], #replay-winners.

import { cardEl, cardText, h, holeCardCount, seatPoints } from "./table.js";
import { formatMoney, formatShort, setChipsTemplate } from "./money.js";

const FALLBACK = {
  hand_number: "Hand #{number}", first: "Start", back: "Back", play: "Play", pause: "Pause", forward: "Forward",
  last: "End", step_of: "Step {n} of {total}", start: "The players sit down.", deal: "The cards are dealt.",
  post_small_blind: "{name} posts the small blind {amount}", post_big_blind: "{name} posts the big blind {amount}",
  post_straddle: "{name} posts a straddle {amount}", post_ante: "{name} posts the ante {amount}",
  post_dead_small_blind: "{name} posts a dead small blind {amount}",
  fold: "{name} folds", check: "{name} checks", call: "{name} calls {amount}", bet: "{name} bets {amount}",
  raise: "{name} raises to {amount}", all_in: "(all-in)", street_flop: "Flop", street_turn: "Turn", street_river: "River",
  return: "Uncalled {amount} returned to {name}", show: "{name} shows {cards}", muck: "{name} mucks",
  collect: "{name} collects {amount} from the {pot}", pot: "pot", main_pot: "Main pot", side_pot: "Side pot {n}",
  total_pot: "Pot {amount}", rake: "rake {amount}", gross: "gross {amount}", net: "to the winners {amount}",
  won: "{name} won {amount}", result: "Result", status_folded: "Folded", status_all_in: "All-in", status_mucked: "Mucked",
  bot: "BOT", dealer_button: "Dealer button", deck_commitment: "Deck commitment", not_found: "This hand cannot be shown.",
  chips: "{amount} chips", run_n: "Run {n}", run_won: "Run {n}: {name} won {amount}",
};
const PLAY_MS = 900;

function readStrings() {
  try {
    return { ...FALLBACK, ...JSON.parse(document.getElementById("i18n").textContent) };
  } catch (e) {
    return { ...FALLBACK };
  }
}

/** A seat's place around the oval, as the table page places it (your own seat at the bottom). */
function seatPlace(point) {
  const pos = { x: 50 + 45.5 * point.x, y: 50 + 41.5 * point.y };
  const bet = { x: 50 + 29 * point.x, y: 50 + 24 * point.y };
  const turned = { x: point.x * Math.cos(0.42) - point.y * Math.sin(0.42), y: point.x * Math.sin(0.42) + point.y * Math.cos(0.42) };
  const dealer = { x: 50 + 33 * turned.x, y: 50 + 29 * turned.y };
  return `left:${pos.x.toFixed(2)}%;top:${pos.y.toFixed(2)}%;` +
    `--bdx:${(bet.x - pos.x).toFixed(2)};--bdy:${(bet.y - pos.y).toFixed(2)};` +
    `--ddx:${(dealer.x - pos.x).toFixed(2)};--ddy:${(dealer.y - pos.y).toFixed(2)}`;
}

export class Replayer {
  constructor(root, data, strings) {
    this.root = root;
    this.data = data;
    this.strings = strings;
    this.index = 0;
    this.timer = null;
    this.players = new Map(data.players.map((p) => [p.seat, p]));
    setChipsTemplate(strings.chips);
    this.build();
    this.show(0);
  }

  t(key, params = {}) {
    let s = this.strings[key] ?? key;
    for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
    return s;
  }

  money(amount) { return formatMoney(amount, this.data.table.currency); }
  short(amount) { return formatShort(amount, this.data.table.currency); }
  name(seat) { return (this.players.get(seat) || {}).name || String(seat); }

  build() {
    const { table, hand, frames } = this.data;
    const E = (this.el = {});
    E.board = h("div", { id: "board", class: "board" });
    E.board2 = h("div", { id: "board-2", class: "board second-run", hidden: true }); // a board run twice
    E.boards = h("div", { class: "boards" }, E.board, E.board2);
    E.pots = h("div", { id: "pots", class: "pots" });
    E.total = h("div", { id: "total-pot", class: "total-pot" });
    E.seats = h("div", { class: "seats" });
    E.felt = h("div", { class: "felt-wrap", id: "felt", "data-seats": String(table.seats) },
      h("div", { class: "felt" }, h("div", { class: "felt-logo", "aria-hidden": "true", text: "♠ ♥ ♣ ♦" })),
      h("div", { class: "felt-center" }, E.total, E.boards, E.pots), E.seats);
    E.description = h("p", { id: "replay-description", class: "replay-description", role: "status", "aria-live": "polite" });
    E.step = h("span", { id: "replay-step", class: "replay-step" });
    E.slider = h("input", { type: "range", id: "replay-slider", min: "0", max: String(frames.length - 1), value: "0",
      "aria-label": this.t("step_of", { n: "", total: "" }).trim(), oninput: () => this.show(Number(E.slider.value)) });
    const control = (name, handler) => h("button", { type: "button", class: "button small", "data-control": name,
      text: this.t(name), onclick: handler });
    E.play = control("play", () => this.play());
    E.pause = control("pause", () => this.pause());
    E.pause.hidden = true;
    const controls = h("div", { class: "replay-controls", role: "group" },
      control("first", () => this.show(0)), control("back", () => this.show(this.index - 1)), E.play, E.pause,
      control("forward", () => this.show(this.index + 1)), control("last", () => this.show(frames.length - 1)),
      E.slider, E.step);
    E.winners = h("ul", { id: "replay-winners", class: "replay-winners" });
    const meta = `${table.name} · ${table.stakes} · ${this.t("hand_number", { number: hand.id })}`;
    const commitment = h("p", { class: "replay-commitment" }, `${this.t("deck_commitment")}: `,
      h("code", { id: "deck-commitment", text: hand.deck_commitment }));
    this.root.replaceChildren(h("h1", { class: "table-name", text: meta }), E.felt, E.description, controls, E.winners,
      commitment);
    document.addEventListener("keydown", (ev) => {
      if (ev.target && ev.target.tagName === "INPUT" && ev.target.type === "text") return;
      if (ev.key === "ArrowRight") this.show(this.index + 1);
      else if (ev.key === "ArrowLeft") this.show(this.index - 1);
      else if (ev.key === " ") { ev.preventDefault(); this.timer ? this.pause() : this.play(); }
    });
  }

  play() {
    if (this.index >= this.data.frames.length - 1) this.show(0);
    this.el.play.hidden = true;
    this.el.pause.hidden = false;
    this.timer = setInterval(() => {
      if (this.index >= this.data.frames.length - 1) this.pause();
      else this.show(this.index + 1);
    }, PLAY_MS);
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    this.el.play.hidden = false;
    this.el.pause.hidden = true;
  }

  show(index) {
    const frames = this.data.frames;
    this.index = Math.max(0, Math.min(frames.length - 1, index));
    const frame = frames[this.index];
    this.el.slider.value = String(this.index);
    this.el.step.textContent = this.t("step_of", { n: this.index + 1, total: frames.length });
    this.el.step.dataset.index = String(this.index);
    this.el.description.textContent = this.describe(frame.step);
    this.renderSeats(frame);
    this.renderCenter(frame);
    this.renderWinners(this.index === frames.length - 1);
  }

  describe(step) {
    const name = this.name(step.seat);
    const amount = this.short(step.kind === "action" && step.verb !== "call" ? step.to : step.amount || 0);
    const allIn = step.all_in ? ` ${this.t("all_in")}` : "";
    switch (step.kind) {
      case "start": return this.t("start");
      case "deal": return this.t("deal");
      case "post": return this.t(`post_${step.verb}`, { name, amount: this.short(step.amount) }) + allIn;
      case "action": return this.t(step.verb, { name, amount }) + allIn;
      case "street": return `${step.run ? `${this.t("run_n", { n: step.run })} · ` : ""}${this.t(`street_${step.street}`)}: ${(step.cards || []).map(cardText).join(" ")}`;
      case "return": return this.t("return", { name, amount: this.short(step.amount) });
      case "show": return this.t("show", { name, cards: (step.cards || []).map(cardText).join(" ") });
      case "muck": return this.t("muck", { name });
      case "collect": return (step.run ? `${this.t("run_n", { n: step.run })} · ` : "")
        + this.t("collect", { name, amount: this.money(step.amount), pot: this.potName(step.pot).toLowerCase() });
      default: return "";
    }
  }

  potName(index) {
    const pots = this.data.hand.pots.length;
    if (pots <= 1) return this.t("pot");
    return index === 0 ? this.t("main_pot") : this.t("side_pot", { n: index });
  }

  renderSeats(frame) {
    const n = Math.max(2, Math.min(10, this.data.table.seats));
    const points = seatPoints(n, 2.05);
    const me = this.data.players.find((p) => p.you);
    const bottom = me ? me.seat : 1;
    const button = this.data.hand.button;
    const seats = frame.seats.map((seat) => {
      const player = this.players.get(seat.seat);
      const place = seatPlace(points[((seat.seat - bottom) % n + n) % n]);
      const backs = seat.has_cards ? Array.from({ length: holeCardCount(this.data.table.game) }, () => cardEl(null)) : [];
      const cards = seat.cards ? seat.cards.map((c) => cardEl(c)) : backs;
      const shown = !!seat.cards && !(player && player.you);
      const status = seat.status === "active" ? "" : this.t(`status_${seat.status}`);
      const el = h("div", { class: `seat status-${seat.status}${player && player.you ? " is-me" : ""}${frame.step.seat === seat.seat ? " is-turn" : ""}`,
        "data-seat": seat.seat, "data-status": seat.status },
      h("div", { class: `cards n${cards.length}${shown ? " shown" : ""}` }, cards),
      h("div", { class: "plate" },
        h("div", { class: "name", title: player ? player.name : "" },
          h("span", { class: "player-name", text: player ? player.name : "" }),
          player && player.bot ? h("span", { class: "bot-badge", text: this.t("bot") }) : null),
        h("div", { class: "plate-row" }, h("span", { class: "stack", "data-amount": seat.stack, text: this.short(seat.stack) })),
        h("div", { class: "status", text: status })),
      h("div", { class: `bet${seat.bet ? "" : " none"}`, "data-amount": seat.bet },
        seat.bet ? [h("span", { class: "chip-stack", "aria-hidden": "true" }), h("span", { class: "bet-amount", text: this.short(seat.bet) })] : []),
      button === seat.seat ? h("span", { class: "dealer-button", title: this.t("dealer_button"), text: "D" }) : null);
      el.style.cssText = place;
      return el;
    });
    this.el.seats.replaceChildren(...seats);
  }

  renderCenter(frame) {
    const boards = frame.boards || [frame.board];
    const fill = (el, cards, label) => {
      const slots = label ? [h("span", { class: "run-label", text: label })] : [];
      for (let i = 0; i < 5; i++) slots.push(cards[i] ? cardEl(cards[i], "board-card") : h("span", { class: "pcard slot", "aria-hidden": "true" }));
      el.replaceChildren(...slots);
    };
    const twice = boards.length > 1;
    fill(this.el.board, boards[0], twice ? this.t("run_n", { n: 1 }) : "");
    this.el.board2.hidden = !twice;
    this.el.boards.classList.toggle("run-twice", twice);
    if (twice) fill(this.el.board2, boards[1], this.t("run_n", { n: 2 }));
    const bets = frame.seats.reduce((sum, s) => sum + s.bet, 0);
    const settled = frame.pots.some((p) => p.net !== undefined);
    const gross = frame.pots.reduce((sum, p) => sum + p.amount, 0) + bets;
    this.el.total.textContent = gross ? this.t("total_pot", { amount: this.money(gross) }) : "";
    this.el.total.dataset.amount = String(gross);
    this.el.pots.replaceChildren(...(settled ? frame.pots : []).map((pot, i) => h("div", {
      class: `pot${i === 0 ? " main" : " side"}`, "data-pot": i, "data-amount": pot.amount, "data-rake": pot.rake,
      "data-net": pot.net, title: `${this.t("gross", { amount: this.money(pot.amount) })} · ${this.t("rake", { amount: this.money(pot.rake) })}`,
    },
    h("span", { class: "pot-label", text: frame.pots.length > 1 ? this.potName(i) : this.t("gross", { amount: this.short(pot.amount) }) }),
    h("span", { class: "pot-net", text: this.money(pot.net) }),
    h("span", { class: "pot-rake", text: this.t("rake", { amount: this.short(pot.rake) }) }))));
  }

  renderWinners(atEnd) {
    if (!atEnd) {
      this.el.winners.replaceChildren();
      return;
    }
    const items = [];
    this.data.hand.pots.forEach((pot, i) => {
      for (const run of pot.runs || []) { // a board run twice: each half of the pot on its board
        for (const [seat, amount] of Object.entries(run.winners)) {
          items.push(h("li", { "data-seat": seat, "data-amount": amount, "data-run": run.run },
            `${this.t("run_won", { n: run.run, name: this.name(Number(seat)), amount: this.money(amount) })} · ${this.potName(i)}`));
        }
      }
      if (pot.runs && pot.runs.length) return;
      for (const [seat, amount] of Object.entries(pot.winners)) {
        items.push(h("li", { "data-seat": seat, "data-amount": amount },
          `${this.t("won", { name: this.name(Number(seat)), amount: this.money(amount) })} · ${this.potName(i)}: `,
          `${this.t("gross", { amount: this.money(pot.amount) })}, ${this.t("rake", { amount: this.money(pot.rake) })}, `,
          this.t("net", { amount: this.money(pot.net) })));
      }
    });
    this.el.winners.replaceChildren(...items);
  }
}

async function start() {
  const app = document.getElementById("replayer-app");
  const root = document.getElementById("replayer");
  if (!app || !root) return null;
  const strings = readStrings();
  try {
    const response = await fetch(app.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(String(response.status));
    window.replayer = new Replayer(root, await response.json(), strings);
  } catch (e) {
    root.replaceChildren(h("p", { class: "table-loading", text: strings.not_found }));
  }
  return window.replayer;
}

if (typeof document !== "undefined") start();
