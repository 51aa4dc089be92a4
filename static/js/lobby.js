// The lobby: keeps the server-rendered rows of #lobby-tables up to date from /ws/lobby/ without reloading, filters
// and sorts them in the browser, shows who sits at a table under its row (its seat count is a button), and opens a
// table when its row is clicked. The server sends {"type": "tables", "tables": [...]} on connect and whenever
// something changes; each entry as /api/tables/, possibly with avg_pot, players_per_flop (percent), hands_per_hour
// and waiting. Filters and the sort are remembered in localStorage.

import { formatMoney, setChipsTemplate } from "./money.js";

const FALLBACK = {
  game_holdem: "Texas Hold'em", game_omaha: "Omaha", game_omaha_hilo: "Omaha Hi-Lo",
  structure_nl: "No-Limit", structure_pl: "Pot-Limit", structure_fl: "Fixed-Limit",
  currency_eur: "EUR", currency_play: "Play chips", bots_one: "1 bot", bots_other: "2 bots", bots_title: "house bots",
  chips: "{amount} chips", count: "{shown} of {total} tables", live: "Live", reconnecting: "Reconnecting…",
  open_table: "Open table {name}", who_sits: "Who sits at {name}", nobody_sits: "Nobody is sitting at this table.",
  preview_failed: "The players could not be read: try again.", sitting_out: "sitting out", bot: "BOT", seat_n: "Seat {n}",
  paused: "Paused", bomb_pot_every_one: "Bomb pot every hand, ante {ante} BB",
  bomb_pot_every: "Bomb pot every {n} hands, ante {ante} BB",
  wait: "Wait", wait_title: "Join the waiting list of {name}", unwait: "Leave list", unwait_title: "Leave the waiting list of {name}", waiting_you: "You are {position} of {count} on the list of {name}.", offer: "Seat {seat} at {name} is yours for {n} s.", offer_take: "Take it",
};
const FILTERS_KEY = "lobby-filters";
const SORT_KEY = "lobby-sort";
const STRUCTURE_ORDER = { nl: 0, pl: 1, fl: 2 };
const DASH = "–";

function readJSON(id) {
  try {
    return JSON.parse(document.getElementById(id).textContent);
  } catch (e) {
    return {};
  }
}

export function tableUrl(id) {
  return `/tables/${id}/`;
}

/** Does a table (its row's data) pass the filters? Stakes are matched by their name: FL200 is not NL200. */
export function matches(t, f) {
  if (f.currency && t.currency !== f.currency) return false;
  if (f.game && t.game !== f.game) return false;
  if (f.structure && t.structure !== f.structure) return false;
  if (f.stakes && t.stakes !== f.stakes) return false;
  if (f.hide_full && t.players >= t.seats) return false;
  if (f.hide_empty && t.players === 0) return false;
  return true;
}

/** Stakes names in the order players read them: by big blind, then No-Limit, Pot-Limit, Fixed-Limit. */
export function stakesOrder(a, b) {
  return a.big_blind - b.big_blind || (STRUCTURE_ORDER[a.structure] ?? 9) - (STRUCTURE_ORDER[b.structure] ?? 9) ||
    String(a.stakes).localeCompare(String(b.stakes));
}

/** A row's value for a sort column (numbers, or text compared in the page's language); empty figures last. */
function sortValue(d, key) {
  const number = (v) => (v === "" || v === undefined ? null : Number(v));
  switch (key) {
    case "name": case "game": case "structure": case "currency": return d[key] || "";
    case "buyin": return number(d.minBuyIn);
    case "players": return number(d.players);
    case "avg_pot": return number(d.avgPot);
    case "players_per_flop": return number(d.playersPerFlop);
    case "hands_per_hour": return number(d.handsPerHour);
    case "waiting": return number(d.waiting);
    default: return null;
  }
}

export function compareRows(a, b, key, dir) {
  if (key === "stakes") {
    // Play chips and euros apart (5.00 chips are not dearer than EUR 4), then in stakes order.
    const row = (d) => ({ big_blind: Number(d.bigBlind), structure: d.structure, stakes: d.stakes });
    return dir * (String(a.currency || "").localeCompare(String(b.currency || "")) || stakesOrder(row(a), row(b)));
  }
  const x = sortValue(a, key);
  const y = sortValue(b, key);
  if (x === null || y === null) return (x === null) - (y === null); // no figure yet: at the end either way
  if (typeof x === "number") return dir * (x - y);
  return dir * String(x).localeCompare(String(y), document.documentElement.lang || undefined, { sensitivity: "base" });
}

class Lobby {
  constructor(table) {
    this.table = table;
    this.tbody = table.tBodies[0];
    this.strings = { ...FALLBACK, ...readJSON("lobby-i18n") };
    setChipsTemplate(this.strings.chips);
    this.form = document.getElementById("lobby-filters");
    this.status = document.getElementById("lobby-status");
    this.count = document.getElementById("lobby-count");
    this.attempt = 0;
    this.serverOrder = this.rows().map((row) => row.dataset.tableId);
    this.previews = new Map(); // table id -> its preview row, while open
    this.authenticated = table.dataset.authenticated === "true";
    this.waitingOn = new Map(); // table id -> this player's `waiting` message, while on that table's list
    this.notice = document.getElementById("lobby-notice");
    this.restoreFilters();
    this.fillStakes();
    this.sort = this.restoreSort();
    for (const th of this.table.tHead.querySelectorAll("th[data-sort]")) {
      th.querySelector("button.sort").addEventListener("click", () => this.sortBy(th.dataset.sort));
    }
    for (const row of this.rows()) this.addPreviewButton(row);
    this.applySort();
    if (this.form) {
      this.form.hidden = false;
      this.form.addEventListener("change", () => {
        this.saveFilters();
        this.applyFilters();
      });
      this.form.addEventListener("submit", (ev) => ev.preventDefault());
    }
    this.tbody.addEventListener("click", (ev) => {
      const wait = ev.target.closest("button.wait-toggle");
      if (wait) {
        const id = Number(wait.closest("tr[data-table-id]").dataset.tableId);
        this.send({ type: this.waitingOn.has(String(id)) ? "waiting_leave" : "waiting_join", table: id });
        return;
      }
      const toggle = ev.target.closest("button.seat-count");
      if (toggle) {
        this.togglePreview(toggle.closest("tr[data-table-id]"));
        return;
      }
      const row = ev.target.closest("tr[data-table-id]");
      if (!row || ev.target.closest("a, button, input, select")) return;
      window.location.href = tableUrl(row.dataset.tableId);
    });
    this.applyFilters();
    this.connect();
  }

  t(key, params = {}) {
    let s = this.strings[key] ?? key;
    for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
    return s;
  }

  rows() {
    return [...this.tbody.querySelectorAll("tr[data-table-id]")];
  }

  // ----- live updates -----------------------------------------------------------------------------------------
  connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/lobby/";
    let ws;
    try {
      ws = new (window.PokerWebSocket || WebSocket)(url);
    } catch (e) {
      this.retry();
      return;
    }
    ws.onopen = () => {
      this.attempt = 0;
      this.setStatus("open");
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      if (msg && msg.type === "tables" && Array.isArray(msg.tables)) this.update(msg.tables);
      else if (msg && ["waiting", "seat_offer", "seat_offer_expired", "waiting_dropped", "removed", "error"].includes(msg.type)) this.onPersonal(msg);
    };
    this.ws = ws;
    ws.onclose = () => this.retry();
  }

  send(message) {
    if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify(message));
  }

  /** What the server sends this player alone: their place on a waiting list, a seat offered, an error. */
  onPersonal(msg) {
    const id = String(msg.table ?? "");
    if (msg.type === "waiting") {
      if (msg.position) this.waitingOn.set(id, msg);
      else this.waitingOn.delete(id);
      this.say(msg.position ? this.t("waiting_you", { ...msg, name: msg.table_name }) : "");
    } else if (msg.type === "seat_offer") {
      const link = document.createElement("a");
      link.className = "button primary";
      link.id = "lobby-offer-take";
      link.href = tableUrl(msg.table);
      link.textContent = this.t("offer_take");
      this.say(this.t("offer", { seat: msg.seat, name: msg.table_name, n: msg.seconds }), link);
    } else {
      if (msg.type !== "error") this.waitingOn.delete(id);
      this.say(msg.message || "");
    }
    const row = this.tbody.querySelector(`tr[data-table-id="${CSS.escape(id)}"]`);
    if (row && row.dataset.json) this.fillRow(row, JSON.parse(row.dataset.json));
  }

  say(text, extra = null) {
    if (!this.notice) return;
    this.notice.hidden = !text;
    this.notice.replaceChildren(text, ...(extra ? [" ", extra] : []));
  }

  retry() {
    this.setStatus("reconnecting");
    const delay = Math.min(20000, 1000 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt = Math.min(this.attempt + 1, 8);
    clearTimeout(this.retryHandle);
    this.retryHandle = setTimeout(() => this.connect(), delay);
  }

  setStatus(state) {
    if (!this.status) return;
    this.status.hidden = false;
    this.status.dataset.state = state;
    this.status.textContent = state === "open" ? this.t("live") : this.t("reconnecting");
  }

  update(tables) {
    const seen = new Set();
    const anchor = document.getElementById("lobby-empty");
    for (const t of tables) {
      seen.add(String(t.id));
      let row = this.tbody.querySelector(`tr[data-table-id="${CSS.escape(String(t.id))}"]`);
      if (!row) row = this.createRow(t);
      this.fillRow(row, t);
      this.tbody.insertBefore(row, anchor);
    }
    this.serverOrder = tables.map((t) => String(t.id));
    for (const row of this.rows()) {
      if (!seen.has(row.dataset.tableId)) {
        this.closePreview(row.dataset.tableId);
        row.remove();
      }
    }
    if (anchor) anchor.hidden = tables.length > 0;
    this.fillStakes();
    this.applySort();
    this.applyFilters();
    for (const id of this.previews.keys()) this.loadPreview(id); // stacks move with every hand
  }

  createRow(t) {
    const row = document.createElement("tr");
    row.className = "lobby-row";
    row.dataset.tableId = String(t.id);
    const cells = [
      "name", "game col-game", "structure col-structure", "currency col-currency", "stakes", "buyin col-buyin", "seats",
      "num avg-pot col-stat", "num players-per-flop col-stat", "num hands-per-hour col-stat", "num waiting col-stat",
    ];
    for (const cls of cells) {
      const td = document.createElement("td");
      td.className = cls;
      row.append(td);
    }
    const link = document.createElement("a");
    link.href = tableUrl(t.id);
    row.querySelector(".name").append(link);
    return row;
  }

  fillRow(row, t) {
    const money = (v) => formatMoney(v, t.currency);
    const set = (cls, text) => {
      const el = row.querySelector(`.${cls}`);
      if (el && el.textContent !== text) el.textContent = text;
    };
    const figure = (v) => (v === undefined || v === null ? "" : String(v));
    Object.assign(row.dataset, {
      name: t.name, currency: t.currency, game: t.game, structure: t.structure, bigBlind: String(t.big_blind),
      stakes: t.stakes ?? "", minBuyIn: String(t.min_buy_in), players: String(t.players), seats: String(t.seats),
      avgPot: figure(t.avg_pot), playersPerFlop: figure(t.players_per_flop), handsPerHour: figure(t.hands_per_hour),
      waiting: figure(t.waiting),
    });
    const link = row.querySelector(".name a");
    if (link) {
      if (link.textContent !== t.name) link.textContent = t.name;
      link.title = this.t("open_table", { name: t.name });
    } else {
      set("name", t.name);
    }
    this.fillTags(row, t);
    set("game", this.t(`game_${t.game}`));
    set("structure", this.t(`structure_${t.structure}`));
    set("currency", this.t(`currency_${t.currency}`));
    const stakes = row.querySelector(".stakes");
    const blinds = `${money(t.small_blind)}/${money(t.big_blind)}`;
    if (stakes.dataset.value !== `${t.stakes}|${blinds}`) {
      stakes.dataset.value = `${t.stakes}|${blinds}`;
      const small = document.createElement("small");
      small.textContent = blinds;
      stakes.replaceChildren(`${t.stakes ?? ""} `, small);
    }
    set("buyin", `${money(t.min_buy_in)} – ${money(t.max_buy_in)}`);
    const seats = row.querySelector(".seats");
    const seatsKey = `${t.players}/${t.seats}/${t.bots}`;
    if (seats.dataset.value !== seatsKey) {
      seats.dataset.value = seatsKey;
      const count = document.createElement("span");
      count.className = "seat-count";
      count.append(`${t.players}/${t.seats}`);
      if (t.bots) {
        const tag = document.createElement("span");
        tag.className = "bot-tag";
        tag.title = this.t("bots_title");
        tag.textContent = t.bots === 1 ? this.t("bots_one") : this.t("bots_other").replace("2", String(t.bots));
        count.append(" ", tag);
      }
      seats.replaceChildren(count);
      this.addPreviewButton(row);
      row.classList.toggle("is-full", t.players >= t.seats);
    }
    const has = (v) => v !== undefined && v !== null;
    set("avg-pot", has(t.avg_pot) ? money(t.avg_pot) : DASH);
    set("players-per-flop", has(t.players_per_flop) ? `${Math.round(t.players_per_flop)} %` : DASH);
    set("hands-per-hour", has(t.hands_per_hour) ? String(Math.round(t.hands_per_hour)) : DASH);
    set("waiting-count", has(t.waiting) ? String(t.waiting) : DASH);
    row.dataset.json = JSON.stringify(t);
    this.fillWaitButton(row, t);
  }

  /** Under the table's name: "Paused" (staff's notice in its tooltip) and its bomb pots ("Bomb pot every 5 hands,
   * ante 2 BB"), from the entry's `paused`, `pause_notice` and `bomb_pot`. */
  fillTags(row, t) {
    const cell = row.querySelector(".name");
    const bomb = t.bomb_pot;
    const tags = [];
    if (t.paused) tags.push(["paused-tag", this.t("paused"), t.pause_notice || ""]);
    if (bomb) {
      const text = bomb.every === 1 ? this.t("bomb_pot_every_one", { ante: bomb.ante_bb })
        : this.t("bomb_pot_every", { n: bomb.every, ante: bomb.ante_bb });
      tags.push(["bomb-pot-tag", text, ""]);
    }
    const key = JSON.stringify(tags);
    let box = cell.querySelector(".table-tags");
    if (box && box.dataset.value === key) return;
    if (!tags.length) {
      if (box) box.remove();
      return;
    }
    if (!box) {
      box = document.createElement("span");
      box.className = "table-tags";
      cell.append(box);
    }
    box.dataset.value = key;
    box.replaceChildren(...tags.map(([cls, text, title]) => {
      const tag = document.createElement("span");
      tag.className = `tag ${cls}`;
      tag.textContent = text;
      if (title) tag.title = title;
      return tag;
    }));
  }

  /** A logged-in player may join a full table's waiting list from its row, and leave it. */
  fillWaitButton(row, t) {
    const cell = row.querySelector(".waiting");
    let count = cell.querySelector(".waiting-count");
    if (!count) {
      count = document.createElement("span");
      count.className = "waiting-count";
      cell.replaceChildren(count);
    }
    const text = t.waiting === undefined || t.waiting === null ? DASH : String(t.waiting);
    if (count.textContent !== text) count.textContent = text;
    let button = cell.querySelector("button.wait-toggle");
    const on = this.waitingOn.has(String(t.id));
    const show = this.authenticated && (on || t.players >= t.seats);
    if (!show) {
      if (button) button.remove();
      return;
    }
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.className = "wait-toggle small";
      cell.append(" ", button);
    }
    button.textContent = this.t(on ? "unwait" : "wait");
    button.title = this.t(on ? "unwait_title" : "wait_title", { name: t.name });
  }

  // ----- filters ----------------------------------------------------------------------------------------------
  filters() {
    if (!this.form) return {};
    const f = {};
    for (const el of this.form.elements) {
      if (!el.name) continue;
      f[el.name] = el.type === "checkbox" ? el.checked : el.value;
    }
    return f;
  }

  saveFilters() {
    try {
      localStorage.setItem(FILTERS_KEY, JSON.stringify(this.filters()));
    } catch (e) { /* private mode */ }
  }

  restoreFilters() {
    if (!this.form) return;
    let saved = {};
    try {
      saved = JSON.parse(localStorage.getItem(FILTERS_KEY) || "{}") || {};
    } catch (e) { /* ignore */ }
    this.savedStakes = saved.stakes || "";
    for (const el of this.form.elements) {
      if (!el.name || !(el.name in saved)) continue;
      if (el.type === "checkbox") el.checked = !!saved[el.name];
      else if (el.name !== "stakes") el.value = saved[el.name];
    }
  }

  /** One option per stakes name at the open tables (FL200 and NL200 apart), in stakes order. */
  fillStakes() {
    if (!this.form) return;
    const select = this.form.elements.stakes;
    const byName = new Map();
    for (const row of this.rows()) {
      const d = row.dataset;
      if (d.stakes) byName.set(d.stakes, { stakes: d.stakes, big_blind: Number(d.bigBlind), structure: d.structure });
    }
    const names = [...byName.values()].sort(stakesOrder).map((s) => s.stakes);
    const current = select.value || this.savedStakes || "";
    const key = names.join(",");
    if (select.dataset.values !== key) {
      select.dataset.values = key;
      select.replaceChildren(select.options[0], ...names.map((name) => {
        const o = document.createElement("option");
        o.value = name;
        o.textContent = name;
        return o;
      }));
    }
    select.value = names.includes(current) ? current : "";
    this.savedStakes = null;
  }

  // ----- sorting ----------------------------------------------------------------------------------------------
  restoreSort() {
    try {
      const saved = JSON.parse(localStorage.getItem(SORT_KEY) || "null");
      if (saved && typeof saved.key === "string" && (saved.dir === 1 || saved.dir === -1)) return saved;
    } catch (e) { /* ignore */ }
    return null;
  }

  sortBy(key) {
    this.sort = this.sort && this.sort.key === key ? { key, dir: -this.sort.dir } : { key, dir: 1 };
    try {
      localStorage.setItem(SORT_KEY, JSON.stringify(this.sort));
    } catch (e) { /* private mode */ }
    this.applySort();
  }

  /** Rows in the chosen column's order (ties in the server's order), or the server's order; previews follow. */
  applySort() {
    const position = new Map(this.serverOrder.map((id, i) => [id, i]));
    const rows = this.rows().sort((a, b) => {
      const byColumn = this.sort ? compareRows(a.dataset, b.dataset, this.sort.key, this.sort.dir) : 0;
      return byColumn || (position.get(a.dataset.tableId) ?? 1e9) - (position.get(b.dataset.tableId) ?? 1e9);
    });
    const anchor = document.getElementById("lobby-empty");
    for (const row of rows) {
      this.tbody.insertBefore(row, anchor);
      const preview = this.previews.get(row.dataset.tableId);
      if (preview) this.tbody.insertBefore(preview, anchor);
    }
    for (const th of this.table.tHead.querySelectorAll("th[data-sort]")) {
      const active = this.sort && this.sort.key === th.dataset.sort;
      th.setAttribute("aria-sort", active ? (this.sort.dir === 1 ? "ascending" : "descending") : "none");
    }
  }

  // ----- who sits at a table ------------------------------------------------------------------------------------
  addPreviewButton(row) {
    const count = row.querySelector(".seats .seat-count");
    if (!count || count.tagName === "BUTTON") return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "seat-count";
    button.title = this.t("who_sits", { name: row.dataset.name || "" });
    button.setAttribute("aria-expanded", this.previews.has(row.dataset.tableId) ? "true" : "false");
    button.append(...count.childNodes);
    count.replaceWith(button);
  }

  togglePreview(row) {
    if (!row) return;
    const id = row.dataset.tableId;
    if (this.previews.has(id)) {
      this.closePreview(id);
      return;
    }
    const preview = document.createElement("tr");
    preview.className = "lobby-preview";
    preview.dataset.previewFor = id;
    const cell = document.createElement("td");
    cell.colSpan = row.cells.length;
    preview.append(cell);
    row.after(preview);
    this.previews.set(id, preview);
    row.querySelector("button.seat-count")?.setAttribute("aria-expanded", "true");
    this.loadPreview(id);
  }

  closePreview(id) {
    const preview = this.previews.get(id);
    if (!preview) return;
    preview.remove();
    this.previews.delete(id);
    this.tbody.querySelector(`tr[data-table-id="${CSS.escape(id)}"] button.seat-count`)?.setAttribute("aria-expanded", "false");
  }

  async loadPreview(id) {
    const row = this.tbody.querySelector(`tr[data-table-id="${CSS.escape(id)}"]`);
    let players = null;
    try {
      const answer = await fetch(`/api/tables/${encodeURIComponent(id)}/players/`, { headers: { Accept: "application/json" } });
      if (answer.ok) players = await answer.json();
    } catch (e) { /* shown below */ }
    const preview = this.previews.get(id);
    if (!preview || !row) return;
    const cell = preview.cells[0];
    if (!Array.isArray(players)) {
      cell.replaceChildren(this.t("preview_failed"));
      return;
    }
    if (!players.length) {
      cell.replaceChildren(this.t("nobody_sits"));
      return;
    }
    const list = document.createElement("ul");
    list.className = "preview-players";
    for (const p of players) {
      const item = document.createElement("li");
      item.dataset.seat = String(p.seat);
      const name = document.createElement("span");
      name.className = "preview-name";
      name.textContent = p.name;
      const stack = document.createElement("span");
      stack.className = "preview-stack";
      stack.textContent = formatMoney(p.stack, row.dataset.currency);
      item.append(name);
      if (p.bot) {
        const tag = document.createElement("span");
        tag.className = "bot-tag";
        tag.textContent = this.t("bot");
        item.append(" ", tag);
      }
      item.append(" ", stack);
      if (p.status === "sitting_out") item.append(` (${this.t("sitting_out")})`);
      item.title = this.t("seat_n", { n: p.seat });
      list.append(item);
    }
    cell.replaceChildren(list);
  }

  applyFilters() {
    const f = this.filters();
    let shown = 0;
    const rows = this.rows();
    for (const row of rows) {
      const d = row.dataset;
      const ok = matches({
        currency: d.currency, game: d.game, structure: d.structure, stakes: d.stakes,
        players: Number(d.players), seats: Number(d.seats),
      }, f);
      row.hidden = !ok;
      const preview = this.previews.get(d.tableId);
      if (preview) preview.hidden = !ok;
      if (ok) shown++;
    }
    const noMatch = document.getElementById("lobby-no-match");
    if (noMatch) noMatch.hidden = !(rows.length && !shown);
    if (this.count) this.count.textContent = this.t("count", { shown, total: rows.length });
  }
}

const element = document.getElementById("lobby-tables");
if (element) window.lobby = new Lobby(element);
