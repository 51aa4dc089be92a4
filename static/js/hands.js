// Naming a poker hand for people ("two pair, jacks and fives", "doppia coppia, jack e cinque"): the best five-card
// high hand of a player's cards with the board (Hold'em: any five; Omaha: exactly two hole cards and three of the
// board) and, for Omaha Hi-Lo, the best 8-or-better low. Only to label cards already shown: the server settles
// the pots with the engine's own evaluator. Cards are written as the protocol writes them ("Js", "5d", "Th").

const RANK_CHARS = "23456789TJQKA";
export const CATEGORIES = [
  "high_card", "pair", "two_pair", "trips", "straight", "flush", "full_house", "quads", "straight_flush",
];

function rankOf(card) {
  return RANK_CHARS.indexOf(card[0]) + 2; // 2..14
}

function combinations(items, k) {
  const out = [];
  const pick = (start, chosen) => {
    if (chosen.length === k) {
      out.push(chosen.slice());
      return;
    }
    for (let i = start; i <= items.length - (k - chosen.length); i++) {
      chosen.push(items[i]);
      pick(i + 1, chosen);
      chosen.pop();
    }
  };
  pick(0, []);
  return out;
}

/** Five cards -> {category, ranks, score}: `ranks` name the hand (pair rank first...), `score` compares hands. */
export function evaluateFive(cards) {
  const ranks = cards.map(rankOf).sort((a, b) => b - a);
  const flush = cards.every((c) => c[1] === cards[0][1]);
  const distinct = [...new Set(ranks)];
  let straightHigh = 0;
  if (distinct.length === 5) {
    if (ranks[0] - ranks[4] === 4) straightHigh = ranks[0];
    else if (ranks[0] === 14 && ranks[1] === 5) straightHigh = 5; // the wheel, A-2-3-4-5
  }
  const counts = new Map();
  for (const r of ranks) counts.set(r, (counts.get(r) || 0) + 1);
  // Groups by size then rank: a full house's trips before its pair, two pair's higher pair first.
  const groups = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
  const shape = groups.map((g) => g[1]).join("");
  const byGroup = groups.map((g) => g[0]);
  let category;
  let named;
  if (straightHigh && flush) [category, named] = ["straight_flush", [straightHigh]];
  else if (shape === "41") [category, named] = ["quads", byGroup];
  else if (shape === "32") [category, named] = ["full_house", byGroup];
  else if (flush) [category, named] = ["flush", ranks];
  else if (straightHigh) [category, named] = ["straight", [straightHigh]];
  else if (shape === "311") [category, named] = ["trips", byGroup];
  else if (shape === "221") [category, named] = ["two_pair", byGroup];
  else if (shape === "2111") [category, named] = ["pair", byGroup];
  else [category, named] = ["high_card", ranks];
  return { category, ranks: named, score: [CATEGORIES.indexOf(category), ...named] };
}

function better(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) > (b[i] || 0);
  }
  return false;
}

function fiveCardChoices(hole, board, omaha) {
  if (omaha) {
    if (hole.length < 2 || board.length < 3) return [];
    const out = [];
    for (const two of combinations(hole, 2)) for (const three of combinations(board, 3)) out.push([...two, ...three]);
    return out;
  }
  const all = [...hole, ...board];
  return all.length < 5 ? [] : combinations(all, 5);
}

/** The best high hand of `hole` with `board`, or null when there are not five cards to make one. */
export function bestHigh(hole, board, { omaha = false } = {}) {
  let best = null;
  for (const five of fiveCardChoices(hole, board, omaha)) {
    const value = evaluateFive(five);
    if (!best || better(value.score, best.score)) best = value;
  }
  return best;
}

/** The best 8-or-better low (two hole cards and three of the board), highest card first (ace = 1), or null. */
export function bestLow(hole, board) {
  const low = (card) => (card[0] === "A" ? 1 : rankOf(card));
  let best = null;
  for (const two of combinations(hole, 2)) {
    for (const three of combinations(board, 3)) {
      const ranks = [...two, ...three].map(low).sort((a, b) => b - a);
      if (ranks[0] > 8 || new Set(ranks).size !== 5) continue;
      if (!best || better(best, ranks)) best = ranks;
    }
  }
  return best;
}

function rankKey(rank) {
  return RANK_CHARS[rank === 1 ? 12 : rank - 2];
}

/**
 * The hand's name in the page's language. `t(key, params)` translates: `hand_<category>` with {one}, {many},
 * {many2} or {high} filled from `rank_one_<R>` ("jack"), `rank_many_<R>` ("jacks") and `rank_high_<R>` ("jack
 * high"), R one of 23456789TJQKA; `hand_royal_flush`; `hand_low` with {cards} ("8-6-4-2-A").
 */
export function handName(high, t) {
  if (!high) return "";
  const [first, second] = high.ranks;
  const one = (r) => t(`rank_one_${rankKey(r)}`);
  const many = (r) => t(`rank_many_${rankKey(r)}`);
  if (high.category === "straight_flush" && first === 14) return t("hand_royal_flush");
  return t(`hand_${high.category}`, {
    one: one(first), many: many(first), many2: second ? many(second) : "", high: t(`rank_high_${rankKey(first)}`),
  });
}

export function lowName(low, t) {
  if (!low) return "";
  const text = low.map((r) => (r === 1 ? "A" : String(r))).join("-");
  return t("hand_low", { cards: text });
}

/** "flush, ace high" (and "; 8-6-4-2-A low" in Omaha Hi-Lo) for shown cards on a board, or "". */
export function describeShown(hole, board, game, t) {
  const omaha = game === "omaha" || game === "omaha_hilo";
  const name = handName(bestHigh(hole, board, { omaha }), t);
  if (game !== "omaha_hilo" || !name || board.length < 3) return name;
  const low = lowName(bestLow(hole, board), t);
  return low ? `${name}; ${low}` : name;
}
