// The tournament page, live: while the tournament registers or runs, its standings and tables are read again from
// /api/tournaments/<id>/ every few seconds (the rest of the page is the server's). When it ends, the page is
// loaded again once, for the places and prizes as the server writes them.

import { formatMoney, setChipsTemplate } from "./money.js";

const REFRESH_MS = 3000;

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") el.textContent = v;
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) el.append(child);
  return el;
}

function start() {
  const standings = document.getElementById("tournament-standings");
  if (!standings) return;
  let strings = {};
  try {
    strings = JSON.parse(document.getElementById("tournament-i18n").textContent);
  } catch (e) {
    strings = {};
  }
  if (strings.chips) setChipsTemplate(strings.chips);
  const t = (key, params = {}) => Object.entries(params).reduce((s, [k, v]) => s.split(`{${k}}`).join(String(v)), strings[key] ?? key);
  const tables = document.getElementById("tournament-tables");
  let status = standings.dataset.status;
  if (status === "finished" || status === "cancelled") return;
  const timer = setInterval(async () => {
    let data;
    try {
      const response = await fetch(standings.dataset.apiUrl, { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      data = await response.json();
    } catch (e) {
      return;
    }
    if (data.status !== status) {
      status = data.status;
      clearInterval(timer);
      window.location.reload(); // started, finished or cancelled: the server's page says it best
      return;
    }
    const money = (amount) => formatMoney(amount, data.currency);
    standings.querySelector("tbody").replaceChildren(...data.standings.map((s) => h("tr", {},
      h("td", {}, s.name, s.bot ? h("span", { class: "bot-tag", text: " " + t("bot") }) : null),
      h("td", { text: String(s.chips) }), h("td", { text: s.place ? String(s.place) + (s.provisional ? " " + t("provisional") : "") : "" }),
      h("td", { text: s.prize ? money(s.prize) : "" }))));
    if (tables) {
      tables.hidden = !data.tables.length;
      tables.querySelector("tbody").replaceChildren(...data.tables.map((row) => h("tr", {},
        h("td", {}, h("a", { href: `/tables/${row.table}/`, text: t("table_n", { n: row.number }) })),
        h("td", { class: "num", text: String(row.players) }), h("td", { class: "num", text: String(row.largest_stack) }))));
    }
  }, REFRESH_MS);
}

start();
