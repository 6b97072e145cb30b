/**
 * A value built at its first use instead of when its module loads. For the zod schemas: a CLI turn loads every
 * module of the gateway but validates only a few things (config.json, settings.json, the session index, the
 * `agent` request), and building all the others at load was ≈ 20 ms of its start-up and ≈ 3 MB of heap.
 *
 * The result stands in for the value itself (a Proxy: property reads, `in`, keys, `instanceof`), so a lazy schema is
 * used, composed into other schemas and typed (`z.infer<typeof X>`) exactly like the schema it builds.
 */
export function lazy<T extends object>(build: () => T): T {
  let value: T | undefined;
  const get = (): T => (value ??= build());
  return new Proxy(Object.create(null) as T, {
    get: (_, key) => Reflect.get(get(), key),
    set: (_, key, v) => Reflect.set(get(), key, v),
    has: (_, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      // The stand-in's own target has no properties: a proxy may only report configurable ones.
      return d && { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
    defineProperty: (_, key, d) => Reflect.defineProperty(get(), key, d),
    deleteProperty: (_, key) => Reflect.deleteProperty(get(), key),
  });
}
