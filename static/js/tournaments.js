// The lobby's Tournaments tab: the list of /api/tournaments/ (status, entrants of the maximum, prize pool, buy-in +
// fee, speed, level, players left, start), read again every few seconds while the tab is shown, with the
// register / unregister forms (POST with the page's CSRF token) and a link to your table once you play.
// The tabs ("#cash", "#tournaments") follow the address's fragment, so a link or a reload keeps the tab.

import { formatMoney, setChipsTemplate } from "./money.js";

const REFRESH_MS = 3000;

function readJSON(id) {
  try {
    return JSON.parse(document.getElementById(id).textContent);
  } catch (e) {
    return {};
  }
}

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") el.textContent = v;
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) el.append(child);
  return el;
}

class TournamentList {
  constructor(panel) {
    this.panel = panel;
    this.strings = readJSON("tournaments-i18n");
    if (this.strings.chips) setChipsTemplate(this.strings.chips);
    this.body = panel.querySelector("tbody");
    this.authenticated = panel.dataset.authenticated === "true";
    this.loginUrl = panel.dataset.loginUrl;
    this.csrf = (panel.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
    this.timer = null;
  }

  t(key, params = {}) {
    let s = this.strings[key] ?? key;
    for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
    return s;
  }

  start() {
    if (this.timer) return;
    this.load();
    this.timer = setInterval(() => this.load(), REFRESH_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  async load() {
    try {
      const response = await fetch(this.panel.dataset.apiUrl, { headers: { Accept: "application/json" } });
      if (response.ok) this.render(await response.json());
    } catch (e) {
      // offline for a moment: the next read tries again
    }
  }

  form(action, label, cls) {
    return h("form", { method: "post", action, class: "inline" },
      h("input", { type: "hidden", name: "csrfmiddlewaretoken", value: this.csrf }),
      h("button", { type: "submit", class: `button small ${cls}`, text: label }));
  }

  action(t) {
    const base = `/tournaments/${t.id}/`;
    if (t.you === "playing" && t.your_table) {
      return h("a", { class: "button small primary your-table", href: `/tables/${t.your_table}/`, text: this.t("your_table") });
    }
    if (t.you === "finished") return h("span", { class: "dim", text: this.t("out") });
    if (t.you === "registered") {
      if (t.status !== "registering") return h("span", { text: this.t("registered") });
      return h("span", {}, h("span", { class: "dim", text: this.t("registered") + " " }),
        this.form(`${base}unregister/`, this.t("unregister"), "ghost unregister"));
    }
    const open = t.status === "registering" || (t.status === "running" && t.late_registration_open);
    if (!open || t.entrants >= t.max_entrants) return null;
    if (!this.authenticated) return h("a", { href: this.loginUrl, text: this.t("log_in") });
    return this.form(`${base}register/`, this.t("register"), "primary register");
  }

  render(list) {
    const rows = list.map((t) => {
      const money = (amount) => formatMoney(amount, t.currency);
      const starts = t.starts_at ? new Date(t.starts_at).toLocaleString(document.documentElement.lang || undefined,
        { dateStyle: "short", timeStyle: "short" }) : this.t("when_full");
      const name = h("td", { class: "name" }, h("a", { href: `/tournaments/${t.id}/`, text: t.name }), " ",
        h("small", { class: "dim", text: this.t(`kind_${t.kind}`) }),
        t.practice ? " " : null,
        t.practice ? h("span", { class: "bot-tag", title: this.t("practice_title"), text: this.t("practice") }) : null);
      return h("tr", { class: "tournament-row", "data-tournament-id": t.id, "data-status": t.status }, name,
        h("td", { text: `${this.t(`structure_${t.structure}`)} ${this.t(`game_${t.game}`)}` }),
        h("td", { class: "status", text: this.t(`status_${t.status}`) }),
        h("td", { class: "entrants", text: `${t.entrants}/${t.max_entrants}` }),
        h("td", { class: "num pool", text: money(t.prize_pool) }),
        h("td", { class: "buyin", text: t.fee ? this.t("fee", { buy_in: money(t.buy_in), fee: money(t.fee) }) : money(t.buy_in) }),
        h("td", { class: "speed", text: this.t(`speed_${t.speed}`) }),
        h("td", { class: "num level", text: t.level ? String(t.level) : "–" }),
        h("td", { class: "num left", text: t.status === "running" ? String(t.players_left) : "–" }),
        h("td", { class: "starts", text: starts }),
        h("td", { class: "action" }, this.action(t)));
    });
    if (!rows.length) rows.push(h("tr", { class: "lobby-empty" }, h("td", { colspan: "11", text: this.t("none") })));
    this.body.replaceChildren(...rows);
  }
}

function tabs() {
  const cash = document.getElementById("lobby-cash");
  const panel = document.getElementById("lobby-tournaments");
  if (!cash || !panel) return;
  const list = new TournamentList(panel);
  const show = () => {
    const tournaments = window.location.hash === "#tournaments";
    cash.hidden = tournaments;
    panel.hidden = !tournaments;
    document.getElementById("tab-cash").setAttribute("aria-selected", String(!tournaments));
    document.getElementById("tab-tournaments").setAttribute("aria-selected", String(tournaments));
    if (tournaments) list.start();
    else list.stop();
  };
  window.addEventListener("hashchange", show);
  show();
}

tabs();
