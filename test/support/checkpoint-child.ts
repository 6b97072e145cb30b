/**
 * A separate process that runs one checkpoint-store operation (snapshot or restore) so a test can SIGKILL it
 * part-way. Prints "start" just before the operation and "done" after it. Arguments: one JSON object in argv[2]:
 * {home, root, op: "snapshot" | "restore", sessionKey, id?, lockStaleMs?}.
 */
import { CheckpointStore } from '../../main/checkpoints/store.js';

const a = JSON.parse(process.argv[2]!) as { home: string; root: string; op: 'snapshot' | 'restore'; sessionKey: string; id?: string; lockStaleMs?: number };
const store = new CheckpointStore(a.home, { lockStaleMs: a.lockStaleMs, onNotice: (l) => process.stdout.write(`notice ${l}\n`) });
await store.recoverNow();
process.stdout.write('start\n');
if (a.op === 'snapshot') await store.snapshot({ sessionKey: a.sessionKey, root: a.root, label: 'child' });
else await store.restore({ sessionKey: a.sessionKey, id: a.id!, files: true });
process.stdout.write('done\n');
