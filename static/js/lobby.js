// The lobby: keeps the server-rendered rows of #lobby-tables up to date from /ws/lobby/ without reloading, filters
// them in the browser, and opens a table when its row is clicked. The server sends {"type": "tables", "tables":
// [...]} on connect and whenever something changes; each entry as /api/tables/, possibly with avg_pot,
// players_per_flop (percent), hands_per_hour and waiting.

import { formatMoney, formatNumber, setChipsTemplate } from "./money.js";

const FALLBACK = {
  game_holdem: "Texas Hold'em", game_omaha: "Omaha", game_omaha_hilo: "Omaha Hi-Lo",
  structure_nl: "No-Limit", structure_pl: "Pot-Limit", structure_fl: "Fixed-Limit",
  currency_eur: "EUR", currency_play: "Play chips", bots_one: "1 bot", bots_other: "2 bots", bots_title: "house bots",
  chips: "{amount} chips", count: "{shown} of {total} tables", live: "Live", reconnecting: "Reconnecting…",
  open_table: "Open table {name}",
};
const FILTERS_KEY = "lobby-filters";
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

/** Does a table (its row's data) pass the filters? */
export function matches(t, f) {
  if (f.currency && t.currency !== f.currency) return false;
  if (f.game && t.game !== f.game) return false;
  if (f.structure && t.structure !== f.structure) return false;
  if (f.stakes_min && t.big_blind < Number(f.stakes_min)) return false;
  if (f.stakes_max && t.big_blind > Number(f.stakes_max)) return false;
  if (f.hide_full && t.players >= t.seats) return false;
  if (f.hide_empty && t.players === 0) return false;
  return true;
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
    this.stakes = new Map(); // big blind -> label
    for (const row of this.rows()) this.stakes.set(Number(row.dataset.bigBlind), row.dataset.stakes || "");
    this.restoreFilters();
    this.fillStakes();
    if (this.form) {
      this.form.hidden = false;
      this.form.addEventListener("change", () => {
        this.saveFilters();
        this.applyFilters();
      });
      this.form.addEventListener("submit", (ev) => ev.preventDefault());
    }
    this.tbody.addEventListener("click", (ev) => {
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
    };
    ws.onclose = () => this.retry();
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
      this.tbody.insertBefore(row, anchor); // keep the server's order
      if (t.stakes !== undefined) this.stakes.set(t.big_blind, t.stakes);
    }
    for (const row of this.rows()) if (!seen.has(row.dataset.tableId)) row.remove();
    if (anchor) anchor.hidden = tables.length > 0;
    this.fillStakes();
    this.applyFilters();
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
    Object.assign(row.dataset, {
      currency: t.currency, game: t.game, structure: t.structure, bigBlind: String(t.big_blind),
      stakes: t.stakes ?? "", players: String(t.players), seats: String(t.seats),
    });
    const link = row.querySelector(".name a");
    if (link) {
      if (link.textContent !== t.name) link.textContent = t.name;
      link.title = this.t("open_table", { name: t.name });
    } else {
      set("name", t.name);
    }
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
      const parts = [`${t.players}/${t.seats}`];
      if (t.bots) {
        const tag = document.createElement("span");
        tag.className = "bot-tag";
        tag.title = this.t("bots_title");
        tag.textContent = t.bots === 1 ? this.t("bots_one") : this.t("bots_other").replace("2", String(t.bots));
        parts.push(" ", tag);
      }
      seats.replaceChildren(...parts);
      row.classList.toggle("is-full", t.players >= t.seats);
    }
    const has = (v) => v !== undefined && v !== null;
    set("avg-pot", has(t.avg_pot) ? money(t.avg_pot) : DASH);
    set("players-per-flop", has(t.players_per_flop) ? `${Math.round(t.players_per_flop)} %` : DASH);
    set("hands-per-hour", has(t.hands_per_hour) ? String(Math.round(t.hands_per_hour)) : DASH);
    set("waiting", has(t.waiting) ? String(t.waiting) : DASH);
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
    this.savedStakes = { stakes_min: saved.stakes_min || "", stakes_max: saved.stakes_max || "" };
    for (const el of this.form.elements) {
      if (!el.name || !(el.name in saved)) continue;
      if (el.type === "checkbox") el.checked = !!saved[el.name];
      else if (!el.name.startsWith("stakes_")) el.value = saved[el.name];
    }
  }

  fillStakes() {
    if (!this.form) return;
    const values = [...this.stakes.keys()].sort((a, b) => a - b);
    for (const name of ["stakes_min", "stakes_max"]) {
      const select = this.form.elements[name];
      const current = select.value || (this.savedStakes && this.savedStakes[name]) || "";
      const key = values.join(",");
      if (select.dataset.values !== key) {
        select.dataset.values = key;
        const any = select.options[0];
        select.replaceChildren(any, ...values.map((bb) => {
          const o = document.createElement("option");
          o.value = String(bb);
          o.textContent = this.stakes.get(bb) || formatNumber(bb);
          return o;
        }));
      }
      select.value = values.includes(Number(current)) ? current : "";
    }
    this.savedStakes = null;
  }

  applyFilters() {
    const f = this.filters();
    let shown = 0;
    const rows = this.rows();
    for (const row of rows) {
      const d = row.dataset;
      const ok = matches({
        currency: d.currency, game: d.game, structure: d.structure, big_blind: Number(d.bigBlind),
        players: Number(d.players), seats: Number(d.seats),
      }, f);
      row.hidden = !ok;
      if (ok) shown++;
    }
    const noMatch = document.getElementById("lobby-no-match");
    if (noMatch) noMatch.hidden = !(rows.length && !shown);
    if (this.count) this.count.textContent = this.t("count", { shown, total: rows.length });
  }
}

const element = document.getElementById("lobby-tables");
if (element) window.lobby = new Lobby(element);
