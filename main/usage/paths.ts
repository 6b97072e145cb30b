/** X4: where the cost ledger lives in the data folder. */
import { join } from 'node:path';

export const ledgerFile = (home: string): string => join(home, 'usage', 'ledger.jsonl');
