import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazy } from '../../main/engine/lazy.js';

describe('lazy (a schema built at its first use)', () => {
  it('builds nothing until used, then once', () => {
    let builds = 0;
    const s = lazy(() => {
      builds++;
      return z.strictObject({ a: z.string() });
    });
    expect(builds).toBe(0);
    expect(s.safeParse({ a: 'x' }).success).toBe(true);
    expect(s.safeParse({ a: 1 }).success).toBe(false);
    expect(Object.keys(s.shape)).toEqual(['a']);
    expect(builds).toBe(1);
  });

  it('stands in for the schema: composed, wrapped, instanceof, keys of a table', () => {
    const name = lazy(() => z.string().min(1, 'empty'));
    const table = lazy(() => ({ one: z.object({ name }).strict(), two: z.object({ n: z.number() }).strict() }));
    expect(table.one.safeParse({ name: 'x' }).success).toBe(true);
    expect(table.one.safeParse({ name: '' }).error?.issues[0]?.message).toBe('empty');
    expect(name.optional().safeParse(undefined).success).toBe(true);
    expect(name instanceof z.ZodString).toBe(true);
    expect(Object.keys(table)).toEqual(['one', 'two']);
    expect('two' in table).toBe(true);
    expect(z.toJSONSchema(z.object({ name }))).toMatchObject({ properties: { name: { type: 'string', minLength: 1 } } });
  });
});
