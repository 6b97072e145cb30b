/**
 * X4 (pure): ledger entries added up — the total, today, this month, and the breakdowns by chat, day, model and key.
 * Days and months are the person's local calendar (the `dayOf` function is injected: tests pin the time zone).
 * Costs are USD numbers; tokens of unpriced models are counted and reported apart (never priced by a guess).
 */
import type { TallyDto } from '../../preload/contract.js';
import type { LedgerEntry } from './ledger.js';

/** One tally: the contract's shape (`usage.summary` returns these as they are). */
export type Tally = TallyDto;

export interface UsageSummary {
  total: Tally;
  today: Tally & { day: string };
  month: Tally & { month: string };
  byChat: Array<Tally & { sessionKey: string; sessionId?: string }>;
  byDay: Array<Tally & { day: string }>;
  byModel: Array<Tally & { model: string }>;
  byKey: Array<Tally & { profileId: string }>;
}

export const emptyTally = (): Tally => ({ usd: 0, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, unpricedCalls: 0 });

export function addEntry(t: Tally, e: LedgerEntry): void {
  t.calls++;
  t.input += e.input;
  t.output += e.output;
  t.cacheRead += e.cacheRead;
  t.cacheWrite += e.cacheWrite;
  if (e.cost === null) t.unpricedCalls++;
  else t.usd += e.cost;
}

/** YYYY-MM-DD of `ts` in the local time zone. */
export const localDay = (ts: number): string => {
  const d = new Date(ts);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** USD rounded to a tenth of a cent's hundredth (no float noise like 0.30000000000000004 in JSON). */
export const roundUsd = (usd: number): number => Math.round(usd * 1e8) / 1e8;

const rounded = <T extends Tally>(t: T): T => ({ ...t, usd: roundUsd(t.usd) });

export function summarize(entries: readonly LedgerEntry[], now: number, dayOf: (ts: number) => string = localDay): UsageSummary {
  const today = dayOf(now);
  const month = today.slice(0, 7);
  const total = emptyTally();
  const todayT = emptyTally();
  const monthT = emptyTally();
  const chats = new Map<string, Tally & { sessionKey: string; sessionId?: string }>();
  const days = new Map<string, Tally & { day: string }>();
  const models = new Map<string, Tally & { model: string }>();
  const keys = new Map<string, Tally & { profileId: string }>();
  for (const e of entries) {
    const day = dayOf(e.ts);
    addEntry(total, e);
    if (day === today) addEntry(todayT, e);
    if (day.startsWith(month)) addEntry(monthT, e);
    const chatId = e.sessionId ?? e.sessionKey;
    // A call of no chat (a key test in Settings) counts everywhere but in the chats.
    if (chatId !== '' && !chats.has(chatId)) chats.set(chatId, { ...emptyTally(), sessionKey: e.sessionKey, ...(e.sessionId ? { sessionId: e.sessionId } : {}) });
    if (chatId !== '') addEntry(chats.get(chatId)!, e);
    if (!days.has(day)) days.set(day, { ...emptyTally(), day });
    addEntry(days.get(day)!, e);
    const model = `${e.provider}/${e.model}`;
    if (!models.has(model)) models.set(model, { ...emptyTally(), model });
    addEntry(models.get(model)!, e);
    const key = e.profileId ?? '(no key)';
    if (!keys.has(key)) keys.set(key, { ...emptyTally(), profileId: key });
    addEntry(keys.get(key)!, e);
  }
  const byCost = <T extends Tally>(a: T, b: T) => b.usd - a.usd || b.calls - a.calls;
  return {
    total: rounded(total),
    today: { ...rounded(todayT), day: today },
    month: { ...rounded(monthT), month },
    byChat: [...chats.values()].map(rounded).sort(byCost),
    byDay: [...days.values()].map(rounded).sort((a, b) => (a.day < b.day ? 1 : -1)),
    byModel: [...models.values()].map(rounded).sort(byCost),
    byKey: [...keys.values()].map(rounded).sort(byCost),
  };
}

/** What one chat has cost (by session id when known, else by key). */
export function chatSpent(entries: readonly LedgerEntry[], chat: { sessionKey: string; sessionId?: string }): number {
  let usd = 0;
  for (const e of entries) if (chat.sessionId ? e.sessionId === chat.sessionId : e.sessionKey === chat.sessionKey) usd += e.cost ?? 0;
  return usd;
}
