import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../main/engine/messages.js';
import {
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
  estimateMessagesTokens,
  estimateTokens,
} from '../../main/engine/attempt/tokens.js';
import { cpuMs } from '../support/cpu-time.js';

// ---- Samples (deterministic). Reference counts below were measured once with js-tiktoken 1.x
// (o200k_base and cl100k_base) on exactly these strings; js-tiktoken is not a project dependency.
const ENGLISH =
  'When the agent starts a run, it first resolves the workspace folder and the model it should use. ' +
  'It then assembles the system prompt from the base instructions, the files that describe the project, ' +
  'and a short note about the runtime. Each model call streams text, reasoning and tool calls back to the ' +
  'window as they arrive, so the person can follow along and stop the run at any moment. When a tool ' +
  'finishes, its result is written to the transcript before the next call is made. If the provider is ' +
  'overloaded, the engine waits a little and tries another key; if every key is cooling down, it moves on ' +
  'to the fallback model and explains what happened in plain words. Long conversations are compacted: ' +
  'older turns become a summary, while the most recent turns stay exactly as they were written.\n\n';

const TYPESCRIPT = `export async function runTurn(session: Session, prompt: string, signal: AbortSignal): Promise<RunResult> {
  const model = resolveModel(session.config.provider, session.config.modelId);
  if (!model) throw new FailoverError('model_not_found', \`unknown model \${session.config.modelId}\`);
  const messages = repairToolPairing(limitHistory(session.messages, session.config.historyTurns));
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      const response = await streamOnce({ model, messages, systemPrompt: session.systemPrompt, signal });
      if (response.stopReason === 'toolUse') {
        const results = await Promise.all(response.toolCalls.map((call) => executeTool(call, signal)));
        messages.push(response.message, ...results);
        continue;
      }
      return { ok: true, message: response.message, usage: response.usage };
    } catch (err) {
      const reason = classifyFailover(err);
      if (reason === 'overloaded') await sleepAbortable(backoffDelay(attempt, Math.random), signal);
      else throw err;
    }
  }
  return { ok: false, error: 'retry budget exhausted' };
}
`;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
}

const r = rng(42);
const TOOL_CALLS = Array.from({ length: 12 }, (_, i) => ({
  id: `toolu_01${Math.floor(r() * 1e12).toString(36)}${i}`,
  name: i % 3 === 0 ? 'read_file' : i % 3 === 1 ? 'edit_file' : 'run_command',
  arguments: { path: `src/components/Panel${i}.tsx`, offset: i * 40, limit: 200, recursive: i % 2 === 0 },
}));
const JSON_COMPACT = JSON.stringify(TOOL_CALLS);
const JSON_PRETTY = JSON.stringify(TOOL_CALLS, null, 2);

const B64 = Buffer.from(Array.from({ length: 900 }, () => Math.floor(r() * 256))).toString('base64');

const CHINESE =
  '代理在开始运行时，会先确定工作目录和要使用的模型。然后它把基础指令、描述项目的文件以及运行环境的简短说明组合成系统提示。' +
  '每一次模型调用都会把文本、推理过程和工具调用实时传回窗口，使用者可以随时查看进度并停止运行。工具执行结束后，' +
  '结果会先写入会话记录，然后才发起下一次调用。如果服务繁忙，引擎会稍等片刻再换一个密钥重试；如果所有密钥都在冷却中，' +
  '它会切换到备用模型，并用简单的话说明发生了什么。';

const JAPANESE =
  'エージェントは実行を始めると、まず作業フォルダと使用するモデルを決めます。次に、基本の指示、プロジェクトを説明するファイル、' +
  '実行環境についての短いメモからシステムプロンプトを組み立てます。モデルの呼び出しごとに、テキストや推論、ツール呼び出しが届き次第ウィンドウに送られます。';

const RUSSIAN =
  'Когда агент начинает работу, он сначала определяет рабочую папку и модель, которую нужно использовать. ' +
  'Затем он собирает системную подсказку из базовых инструкций и файлов, описывающих проект.';

const SAMPLES: Record<string, string> = {
  english: ENGLISH.repeat(2),
  typescript: TYPESCRIPT,
  jsonCompact: JSON_COMPACT,
  jsonPretty: JSON_PRETTY,
  base64: B64,
  chinese: CHINESE,
  japanese: JAPANESE,
  russian: RUSSIAN,
};

const REFERENCE: Record<string, { o200k: number; cl100k: number }> = {
  english: { o200k: 320, cl100k: 320 },
  typescript: { o200k: 254, cl100k: 254 },
  jsonCompact: { o200k: 511, cl100k: 514 },
  jsonPretty: { o200k: 811, cl100k: 814 },
  base64: { o200k: 801, cl100k: 853 },
  chinese: { o200k: 135, cl100k: 197 },
  japanese: { o200k: 107, cl100k: 150 },
  russian: { o200k: 43, cl100k: 74 },
};

const ratio = (estimate: number, reference: number): number => estimate / reference - 1;

describe('estimateTokens: samples against measured tokenizer counts', () => {
  it('the samples are the ones that were measured', () => {
    expect(Object.fromEntries(Object.entries(SAMPLES).map(([k, s]) => [k, s.length]))).toEqual({
      english: 1588,
      typescript: 1127,
      jsonCompact: 1658,
      jsonPretty: 2391,
      base64: 1200,
      chinese: 195,
      japanese: 138,
      russian: 192,
    });
  });

  it.each<[string, number]>([
    // [sample, tolerance vs o200k]
    ['english', 0.15],
    ['typescript', 0.15],
    ['jsonCompact', 0.2],
    ['jsonPretty', 0.2],
    ['base64', 0.15],
  ])('%s within ±%s of o200k', (name, tolerance) => {
    const est = estimateTokens(SAMPLES[name]!);
    expect(Math.abs(ratio(est, REFERENCE[name]!.o200k))).toBeLessThanOrEqual(tolerance);
  });

  it('English prose and code stay close to chars/4', () => {
    for (const name of ['english', 'typescript']) {
      const s = SAMPLES[name]!;
      expect(Math.abs(ratio(estimateTokens(s), s.length / 4))).toBeLessThanOrEqual(0.3);
    }
  });

  it.each(['jsonPretty', 'base64', 'chinese', 'japanese'])('%s: closer than chars/4, which undercounts', (name) => {
    const s = SAMPLES[name]!;
    const ref = REFERENCE[name]!.o200k;
    expect(ratio(s.length / 4, ref)).toBeLessThan(-0.2);
    expect(Math.abs(ratio(estimateTokens(s), ref))).toBeLessThan(Math.abs(ratio(s.length / 4, ref)));
  });

  it.each(['chinese', 'japanese', 'russian'])('%s: never below o200k, within 15%% of cl100k', (name) => {
    const est = estimateTokens(SAMPLES[name]!);
    expect(est).toBeGreaterThanOrEqual(REFERENCE[name]!.o200k);
    expect(Math.abs(ratio(est, REFERENCE[name]!.cl100k))).toBeLessThanOrEqual(0.15);
  });

  it('CJK counts about one token per character', () => {
    expect(estimateTokens(SAMPLES.chinese!)).toBe(SAMPLES.chinese!.length);
  });
});

describe('estimateTokens: exact small cases', () => {
  it.each<[string, number]>([
    ['', 0],
    ['hello', 1], // 5 × 0.2
    ['Hello, world!', 4], // 10 × 0.2 + 2 × 0.6 = 3.2
    ['a\nb', 2], // 0.2 + 1 + 0.2
    ['camelCaseName', 5], // 13 × 0.2 + 2 switches
    ['HTTPServer', 2], // upper→lower is not a switch
    ['abc123', 3], // 1.2 + 1 switch
    ['   \t\r', 0],
    ['你好', 2],
    ['été', 1], // 0.4 + 0.2 + 0.4, no float drift
    ['😀', 2], // two UTF-16 units × 0.8
    ['{"a":1}', 4], // 5 symbols × 0.6 + 2 × 0.2 = 3.4
  ])('%j → %d', (text, expected) => {
    expect(estimateTokens(text)).toBe(expected);
  });

  it('is additive up to rounding', () => {
    const a = SAMPLES.english!;
    const b = SAMPLES.jsonPretty!;
    const joined = estimateTokens(a + b);
    expect(joined).toBeGreaterThanOrEqual(estimateTokens(a) + estimateTokens(b) - 2);
    expect(joined).toBeLessThanOrEqual(estimateTokens(a) + estimateTokens(b) + 2);
  });

  it('is linear: 2 MB in well under a second', () => {
    const big = SAMPLES.typescript!.repeat(Math.ceil(2_000_000 / SAMPLES.typescript!.length));
    expect(cpuMs(() => estimateTokens(big)).ms).toBeLessThan(1000);
  });
});

describe('estimateMessagesTokens', () => {
  const assistant = (content: AssistantMessage['content']): AssistantMessage => ({
    role: 'assistant',
    content,
    provider: 'p',
    model: 'm',
    api: 'a',
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    stopReason: 'stop',
    timestamp: 0,
  });
  const O = MESSAGE_OVERHEAD_TOKENS;

  it.each<[string, Message[], string, number]>([
    ['nothing', [], '', 0],
    ['system prompt only', [], 'hello', O + 1],
    ['one user message', [{ role: 'user', content: 'Hello, world!', timestamp: 0 }], '', O + 4],
    [
      'assistant text + thinking (signature not counted)',
      [assistant([{ type: 'thinking', thinking: 'hello', signature: 'x'.repeat(500) }, { type: 'text', text: 'hello' }])],
      '',
      O + 1 + 1,
    ],
    [
      'tool call: name + JSON arguments + framing',
      [assistant([{ type: 'toolCall', id: 'call_1', name: 'read', arguments: { a: 1 } }])],
      '',
      O + TOOL_CALL_OVERHEAD_TOKENS + 1 + 4,
    ],
    [
      'tool result',
      [{ role: 'toolResult', toolCallId: 'call_1', toolName: 'read', content: 'hello', isError: false, timestamp: 0 }],
      'hello',
      O + 1 + O + 1,
    ],
  ])('%s', (_name, messages, system, expected) => {
    expect(estimateMessagesTokens(messages, system)).toBe(expected);
  });

  it('a long conversation ≈ sum of its texts + framing', () => {
    const messages: Message[] = Object.values(SAMPLES).map((s, i) => ({ role: 'user', content: s, timestamp: i }));
    const texts = Object.values(SAMPLES).reduce((sum, s) => sum + estimateTokens(s), 0);
    expect(estimateMessagesTokens(messages, SAMPLES.english)).toBe(
      texts + messages.length * O + O + estimateTokens(SAMPLES.english!),
    );
  });
});
