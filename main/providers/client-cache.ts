/**
 * One SDK client per (baseUrl, apiKey), reused across calls (keeps connection pools warm). Bounded, so rotating
 * keys and ad-hoc base URLs cannot grow it without limit.
 */
export class ClientCache<C> {
  private readonly clients = new Map<string, C>();

  constructor(
    private readonly create: (baseUrl: string | undefined, apiKey: string) => C,
    private readonly max = 16,
  ) {}

  get(baseUrl: string | undefined, apiKey: string): C {
    const key = `${baseUrl ?? ''}\u0000${apiKey}`;
    let client = this.clients.get(key);
    if (client !== undefined) {
      this.clients.delete(key); // move to most-recent
    } else {
      client = this.create(baseUrl, apiKey);
      if (this.clients.size >= this.max) {
        const oldest = this.clients.keys().next().value;
        if (oldest !== undefined) this.clients.delete(oldest);
      }
    }
    this.clients.set(key, client);
    return client;
  }

  get size(): number {
    return this.clients.size;
  }
}
