/**
 * X1 OAuth for remote MCP servers (the MCP authorization flow of 2025-06-18 / 2026-07-28: protected-resource
 * metadata, authorization-server metadata, dynamic client registration, PKCE, refresh) through the SDK's
 * `OAuthClientProvider`. What has to persist — the registered client and the tokens — is kept in the OS keychain
 * (account `<server>:oauth`), never in a file. Consent happens in the person's browser: the app opens the system
 * browser, the CLI and the web UI show the URL; the browser comes back to a loopback redirect
 * (`http://127.0.0.1:<port>/callback`, RFC 8252) that this provider listens on while a consent is pending. The
 * `state` parameter is checked before the code is handed to the SDK (which checks `iss`).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import type { SecretStore } from '../auth/secrets.js';
import { oauthAccount } from './secrets.js';

/** How long a consent may take before the pending flow is dropped. */
export const CONSENT_TIMEOUT_MS = 5 * 60_000;

interface Stored {
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
}

const PAGE = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>AgentDesk</title><body style="font-family:system-ui;margin:3em">${text}</body>`;

export class McpOAuthProvider implements OAuthClientProvider {
  /** Set when the SDK asks for consent: the URL the person opens. */
  authorizationUrl: URL | undefined;
  private server: Server | undefined;
  private port = 0;
  private verifier: string | undefined;
  private readonly stateValue = randomBytes(16).toString('hex');
  private callback: ((params: URLSearchParams) => void) | undefined;
  private callbackFailed: ((err: Error) => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly server_: string,
    private readonly keychain: () => Promise<SecretStore>,
    private readonly openUrl?: (url: string) => void,
  ) {}

  /** Starts the loopback redirect listener (the redirect URL names its port). */
  async prepare(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const params = url.searchParams;
      if (params.get('state') !== this.stateValue) {
        res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('This authorization answer does not belong to the request AgentDesk made. Try again from AgentDesk.'));
        return;
      }
      if (params.get('error')) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Authorization was refused. You can close this window.'));
        this.callbackFailed?.(new Error(`authorization refused: ${params.get('error')}`));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE(`AgentDesk is now authorized for the MCP server “${this.server_}”. You can close this window.`));
      this.callback?.(params);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  /** Resolves with the callback's parameters once the person consented (rejects on refusal or timeout). */
  waitForCallback(timeoutMs = CONSENT_TIMEOUT_MS): Promise<URLSearchParams> {
    return new Promise((resolve, reject) => {
      // Referenced: a `mcp test` waiting for the browser stays alive; close() (the gateway closing) ends the wait.
      const timer = setTimeout(() => reject(new Error('no authorization within 5 minutes')), timeoutMs);
      this.timer = timer;
      this.callback = (p) => {
        clearTimeout(timer);
        resolve(p);
      };
      this.callbackFailed = (e) => {
        clearTimeout(timer);
        reject(e);
      };
    });
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // Idle connections only: the page answering the browser's redirect may still be on its way.
    this.server?.close();
    this.server?.closeIdleConnections();
    this.server = undefined;
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'AgentDesk',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.stateValue;
  }

  private async load(): Promise<Stored> {
    // No keychain: nothing stored (a server that needs no OAuth still connects; saving a token then fails plainly).
    const store = await this.keychain().catch(() => undefined);
    const text = await store?.get(oauthAccount(this.server_)).catch(() => null);
    if (!text) return {};
    try {
      return JSON.parse(text) as Stored;
    } catch {
      return {};
    }
  }

  private async save(change: (s: Stored) => Stored): Promise<void> {
    const next = change(await this.load());
    const store = await this.keychain();
    if (!next.client && !next.tokens) await store.delete(oauthAccount(this.server_));
    else await store.set(oauthAccount(this.server_), JSON.stringify(next));
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const client = (await this.load()).client;
    // Registered for another loopback port (an earlier process): register again rather than be refused.
    const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (client && uris && !uris.includes(this.redirectUrl) && this.server) return undefined;
    return client;
  }

  async saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
    await this.save((s) => ({ ...s, client: info }));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.load()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.save((s) => ({ ...s, tokens }));
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
    this.openUrl?.(url.href);
  }

  /** Discovery state, like the verifier, lives as long as the flow (one process): it binds the callback to its server. */
  private discovery: OAuthDiscoveryState | undefined;

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No authorization is in progress.');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
    if (scope === 'all' || scope === 'client') await this.save((s) => ({ tokens: s.tokens }));
    if (scope === 'all' || scope === 'tokens') await this.save((s) => ({ client: s.client }));
  }
}
