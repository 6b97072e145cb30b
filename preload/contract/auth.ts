/** D2 contract: auth profiles and keys as the UI sees them (never a key itself): `auth.*`. */
import type { FailoverReasonDto } from './runs.js';

/** E6: one auth profile as the outer loop sees it (never the key itself). */
export interface ProfileStatus {
  id: string; // "provider:label"
  provider: string;
  source: 'env' | 'keychain';
  /** Masked key (last four characters), when the key is readable. */
  masked?: string;
  state: 'ok' | 'cooling' | 'disabled' | 'missing';
  /** Epoch ms when the cooldown ends (state 'cooling'). */
  cooldownUntil?: number;
  reason?: FailoverReasonDto;
  /** E6: models the key is benched for (a rate limit is the model's), while the key serves the others. */
  modelCooldowns?: { model: string; until: number; reason: FailoverReasonDto }[];
  lastError?: string;
  lastGoodAt?: number;
  lastUsedAt?: number;
}

/** D4: a key profile added in Settings (metadata only; the key itself never leaves main). */
export interface KeyProfileView {
  id: string; // "provider:label"
  provider: string;
  label: string;
  storage: 'keychain' | 'encrypted';
  addedAt: number;
  /** First six and last four characters, when the key is readable. */
  masked?: string;
}

/** D4: the outcome of "test key" (one minimal real request), classified like a run's errors. */
export type AuthTestResult =
  | { ok: true; model: string; latencyMs: number }
  | { ok: false; reason: FailoverReasonDto; message: string; latencyMs: number };
