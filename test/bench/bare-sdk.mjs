// Baseline for `npm run bench`: stream one reply with the Anthropic SDK alone (raw events, maxRetries 0) and
// print the text — the least any client can do for the same turn.
import Anthropic from '@anthropic-ai/sdk';

const [baseURL, model] = process.argv.slice(2);
const client = new Anthropic({ apiKey: 'sk-ant-bench', baseURL, maxRetries: 0 });
const stream = await client.messages.create({
  model,
  max_tokens: 4096,
  stream: true,
  messages: [{ role: 'user', content: 'bench' }],
});
let text = '';
for await (const event of stream) {
  if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
}
process.stdout.write(`${text}\n`);
