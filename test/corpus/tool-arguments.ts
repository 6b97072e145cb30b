/**
 * OpenClaw src/agents/embedded-agent-runner/run/attempt.tool-call-argument-repair.test.ts, as data: the argument
 * text a model streamed for one tool call and the arguments the tool gets. Ours: `parseToolArgs` (main/providers/
 * tool-args.ts), which every provider's tool calls go through. `expected: null` means the call does not run (the
 * model is answered with an error asking for valid JSON).
 */
export interface ArgsCase {
  id: string;
  /** The streamed argument text (OpenClaw's deltas joined). */
  raw: string;
  expected: Record<string, unknown> | null;
  ours?: { args: Record<string, unknown> | null; why: string };
  na?: string;
}

export const TOOL_ARGUMENTS_SRC = 'src/agents/embedded-agent-runner/run/attempt.tool-call-argument-repair.test.ts';

const GATE = 'OpenClaw turns its repair on per provider and API; every provider of ours goes through the one parser';
const SMART_QUOTES = {
  args: null,
  why: 'smart quotes (“ ”) as JSON quotes: where a value ends is a guess (OpenClaw guesses from per-tool key lists); a wrong guess writes the wrong file, so the call is refused and the model asked for valid JSON',
} as const;
const DOUBLE_ESCAPED =
  'a literal \\n in a code argument is what the model sent; we do not rewrite argument values by heuristics (OpenClaw turns some into newlines at Python block boundaries)';

/** OpenClaw's cases prefix the arguments with a Kimi-style ".functions.NAME:0 " preamble. */
const pre = (name: string, args: string) => `.functions.${name}:0 ${args}`;

export const TOOL_ARGUMENT_CASES: readonly ArgsCase[] = [
  // shouldRepairMalformedToolCallArguments: which provider/API pairs get the repair
  { id: 'gate-kimi-anthropic', raw: '', expected: {}, na: GATE },
  { id: 'gate-kimi-coding-anthropic', raw: '', expected: {}, na: GATE },
  { id: 'gate-openai-completions', raw: '', expected: {}, na: GATE },
  { id: 'gate-openai-responses', raw: '', expected: {}, na: GATE },
  { id: 'gate-kimi-responses', raw: '', expected: {}, na: GATE },
  { id: 'gate-direct-openai-responses', raw: '', expected: {}, na: GATE },
  { id: 'gate-codex-azure-responses', raw: '', expected: {}, na: GATE },
  {
    id: 'split-replacement-tokens',
    raw: '{"text":"[MAS' + 'KED]"}',
    expected: { text: 'John Smith' },
    na: 'the replacement comes from an OpenClaw plugin text transform; the parse itself gives {"text":"[MASKED]"}',
  },
  // fragmented function-call args with a preamble and trailing junk, per API
  ...(['openai-completions', 'openai-chatgpt-responses', 'azure-openai-responses'] as const).map(
    (api): ArgsCase => ({ id: `fragmented-${api}`, raw: pre('read', '{"path":"/tmp/report.txt"' + '}x'), expected: { path: '/tmp/report.txt' } }),
  ),
  // smart-quoted arguments
  {
    id: 'smart-quotes-edit-cjk',
    raw: pre(
      'edit',
      ' {“path”:“notes/报告.md”,“oldText”:“旧的 **草稿**”,“newText”:“更新 **草稿** with “smart”, “sure” and code "x"\nJSON-ish “alpha”, “path”: “ignored” snippet\nSee [“quoted”](https://example.test)\nconst re = /\\d+/;\n内部内容”}',
    ),
    expected: {
      path: 'notes/报告.md',
      oldText: '旧的 **草稿**',
      newText:
        '更新 **草稿** with “smart”, “sure” and code "x"\nJSON-ish “alpha”, “path”: “ignored” snippet\nSee [“quoted”](https://example.test)\nconst re = /\\d+/;\n内部内容',
    },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-edits-array',
    raw: pre('edit', ' {“path”:“notes/报告.md”,“edits”:[{“oldText”:“旧的 **草稿**”,“newText”:“更新 \\"草稿\\"\\nnext”},{“oldText”:“tail”,“newText”:“done”}]}'),
    expected: {
      path: 'notes/报告.md',
      edits: [
        { oldText: '旧的 **草稿**', newText: '更新 "草稿"\nnext' },
        { oldText: 'tail', newText: 'done' },
      ],
    },
    ours: SMART_QUOTES,
  },
  {
    id: 'ascii-json-with-inner-smart-quotes',
    raw: pre('read', '{"path":"notes/日志.md","content":"包含“内部”与 **重点** 字样"}x'),
    expected: { path: 'notes/日志.md', content: '包含“内部”与 **重点** 字样' },
  },
  { id: 'smart-quotes-workdir', raw: pre('exec', '{“command“:“pwd“,“workdir“:“/tmp“}'), expected: { command: 'pwd', workdir: '/tmp' }, ours: SMART_QUOTES },
  { id: 'smart-quotes-exact', raw: pre('read', '{“path”:“safe.txt”}'), expected: { path: 'safe.txt' }, ours: SMART_QUOTES },
  {
    id: 'smart-quotes-option-keys',
    raw: pre('read', '{“path”:“safe.txt”,“offset”:5,“limit”:20}'),
    expected: { path: 'safe.txt', offset: 5, limit: 20 },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-no-preamble',
    raw: '{“path”:“safe.txt”,“offset”:5,“limit”:20}',
    expected: { path: 'safe.txt', offset: 5, limit: 20 },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-case-varied-name',
    raw: '{“path”:“safe.txt”,“offset”:5,“limit”:20}',
    expected: { path: 'safe.txt', offset: 5, limit: 20 },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-unknown-member-prose',
    raw: pre('grep', ' {“pattern”:“Use ”, “foo”: “bar” in prose”,“path”:“safe.txt”}'),
    expected: { pattern: 'Use ”, “foo”: “bar” in prose', path: 'safe.txt' },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-known-option-prose',
    raw: pre('grep', ' {“pattern”:“Use ”, “limit”: “bar” in prose”,“path”:“safe.txt”}'),
    expected: { pattern: 'Use ”, “limit”: “bar” in prose', path: 'safe.txt' },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-mismatched-prefix',
    raw: pre('read', ' {“pattern”:“Use ”, “limit”: “bar” in prose”,“path”:“safe.txt”}'),
    expected: { pattern: 'Use ”, “limit”: “bar” in prose', path: 'safe.txt' },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-inherited-name',
    raw: pre('constructor', '{“length”:“x”,“foo”:1}'),
    expected: {},
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-json-escapes',
    raw: pre('write', ' {“path”:“safe.txt”,“content”:“line\\nnext \\"quoted\\" path C:\\\\tmp mark \\u2713 invalid \\d”}'),
    expected: { path: 'safe.txt', content: 'line\nnext "quoted" path C:\\tmp mark ✓ invalid \\d' },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-duplicate-looking',
    raw: pre('write', ' {“path”:“safe.txt”,“content”:“text ”, “path”: “other.txt””}'),
    expected: { path: 'safe.txt', content: 'text ”, “path”: “other.txt”' },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-unknown-member-content',
    raw: pre('write', ' {“path”:“safe.txt”,“content”:“Use ”, “foo”: “bar” in prose”}'),
    expected: { path: 'safe.txt', content: 'Use ”, “foo”: “bar” in prose' },
    ours: SMART_QUOTES,
  },
  {
    id: 'smart-quotes-mixed-ascii-keys',
    raw: pre('write', ' {"path":"safe.txt","content":“Use ”, “foo”: “bar” in prose”}'),
    expected: { path: 'safe.txt', content: 'Use ”, “foo”: “bar” in prose' },
    ours: SMART_QUOTES,
  },
  // double-escaped code strings (a result wrapper over the parsed arguments)
  {
    id: 'double-escaped-python-blocks',
    raw: JSON.stringify({ path: 'test.py', content: 'class Foo:\\n    def bar():\\n        pass' }),
    expected: { path: 'test.py', content: 'class Foo:\n    def bar():\n        pass' },
    ours: { args: { path: 'test.py', content: 'class Foo:\\n    def bar():\\n        pass' }, why: DOUBLE_ESCAPED },
  },
  {
    id: 'double-escaped-exec-command',
    raw: JSON.stringify({ command: 'python -c "for i in range(3):\\n    print(i)"' }),
    expected: { command: 'python -c "for i in range(3):\n    print(i)"' },
    ours: { args: { command: 'python -c "for i in range(3):\\n    print(i)"' }, why: DOUBLE_ESCAPED },
  },
  {
    id: 'double-escaped-mixed-regex-literal',
    raw: JSON.stringify({
      path: 'test.py',
      content: 'import re\n\nclass Parser:\n    def tokenize(self, text):\n        return re.split(r"\\n", text)',
    }),
    expected: {
      path: 'test.py',
      content: 'import re\n\nclass Parser:\n    def tokenize(self, text):\n        return re.split(r"\\n", text)',
    },
  },
  {
    id: 'double-escaped-path-untouched',
    raw: JSON.stringify({ path: 'test\\nfile.py', content: 'class Foo:\\n    pass' }),
    expected: { path: 'test\\nfile.py', content: 'class Foo:\n    pass' },
    ours: { args: { path: 'test\\nfile.py', content: 'class Foo:\\n    pass' }, why: DOUBLE_ESCAPED },
  },
  {
    id: 'double-escaped-tabs',
    raw: JSON.stringify({ path: 'test.py', content: 'class Foo:\\n\\tdef bar():\\n\\t\\tpass\\n\\ndef baz():\\n\\treturn 42' }),
    expected: { path: 'test.py', content: 'class Foo:\n\tdef bar():\n\t\tpass\n\ndef baz():\n\treturn 42' },
    ours: {
      args: { path: 'test.py', content: 'class Foo:\\n\\tdef bar():\\n\\t\\tpass\\n\\ndef baz():\\n\\treturn 42' },
      why: DOUBLE_ESCAPED,
    },
  },
  {
    id: 'double-escaped-final-result',
    raw: JSON.stringify({ path: 'test.py', content: 'class Foo:\\n    def bar():\\n        pass' }),
    expected: { path: 'test.py', content: 'class Foo:\n    def bar():\n        pass' },
    ours: { args: { path: 'test.py', content: 'class Foo:\\n    def bar():\\n        pass' }, why: DOUBLE_ESCAPED },
  },
  {
    id: 'real-newline-after-colon-untouched',
    raw: JSON.stringify({ command: 'python -c "for i in range(3):\n    print(i)"' }),
    expected: { command: 'python -c "for i in range(3):\n    print(i)"' },
  },
  {
    id: 'literal-backslash-n-untouched',
    raw: JSON.stringify({ command: "echo 'end:\\n' > /dev/null" }),
    expected: { command: "echo 'end:\\n' > /dev/null" },
  },
];
