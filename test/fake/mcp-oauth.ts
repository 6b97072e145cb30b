/**
 * A fake OAuth-protected MCP server for the X1 OAuth tests: an authorization server (RFC 8414 metadata, RFC 7591
 * dynamic client registration, an authorization endpoint whose "consent" is scripted — it redirects straight back
 * with a code —, a token endpoint with PKCE S256 checks and refresh tokens) and a protected resource (RFC 9728
 * metadata; 401 with `WWW-Authenticate: Bearer resource_metadata=…` without a valid token) that forwards
 * authorized requests to a real MCP server (server-everything over Streamable HTTP). Loopback only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';

export interface FakeOAuthMcp {
  /** The protected MCP endpoint. */
  url: string;
  issuer: string;
  /** Grant types the token endpoint answered, in order (authorization_code, refresh_token). */
  grants: string[];
  /** Authorization requests made (the consent page visits). */
  authorizations: number;
  /** Every access token issued. */
  issued: string[];
  /** Every access token stops working (as if it expired); the refresh tokens keep working. */
  expireTokens(): void;
  close(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString('base64url');
const token = (prefix: string) => `${prefix}_${randomBytes(18).toString('hex')}`;

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const json = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(value));
};

export async function startFakeOAuthMcp(upstream: string): Promise<FakeOAuthMcp> {
  const codes = new Map<string, { challenge: string; clientId: string; redirectUri: string }>();
  const clients = new Map<string, string[]>();
  const valid = new Set<string>();
  const refresh = new Set<string>();
  const state = { grants: [] as string[], authorizations: 0, issued: [] as string[] };
  let base = '';

  const issue = (res: ServerResponse, grant: string) => {
    const access = token('at');
    const rt = token('rt');
    valid.add(access);
    refresh.add(rt);
    state.issued.push(access);
    state.grants.push(grant);
    json(res, 200, { access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: rt });
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    try {
      if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
        return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base], bearer_methods_supported: ['header'] });
      }
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(res, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
        });
      }
      if (url.pathname === '/register' && req.method === 'POST') {
        const meta = JSON.parse(await body(req)) as { redirect_uris?: string[] };
        const id = token('client');
        clients.set(id, meta.redirect_uris ?? []);
        return json(res, 201, { ...meta, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000) });
      }
      if (url.pathname === '/authorize') {
        state.authorizations++;
        const p = url.searchParams;
        const clientId = p.get('client_id') ?? '';
        const redirectUri = p.get('redirect_uri') ?? '';
        if (!clients.get(clientId)?.includes(redirectUri) || p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) {
          return json(res, 400, { error: 'invalid_request' });
        }
        // The scripted consent: the person said yes at once.
        const code = token('code');
        codes.set(code, { challenge: p.get('code_challenge')!, clientId, redirectUri });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        if (p.get('state')) back.searchParams.set('state', p.get('state')!);
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        const p = new URLSearchParams(await body(req));
        if (p.get('grant_type') === 'authorization_code') {
          const entry = codes.get(p.get('code') ?? '');
          codes.delete(p.get('code') ?? '');
          const verifier = p.get('code_verifier') ?? '';
          if (!entry || entry.redirectUri !== p.get('redirect_uri') || b64url(createHash('sha256').update(verifier).digest()) !== entry.challenge) {
            return json(res, 400, { error: 'invalid_grant' });
          }
          return issue(res, 'authorization_code');
        }
        if (p.get('grant_type') === 'refresh_token') {
          const rt = p.get('refresh_token') ?? '';
          if (!refresh.delete(rt)) return json(res, 400, { error: 'invalid_grant' });
          return issue(res, 'refresh_token');
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (url.pathname === '/mcp') {
        const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
        if (!auth || !valid.has(auth[1]!)) {
          res
            .writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`, 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'invalid_token' }));
          return;
        }
        const target = new URL(upstream);
        const headers = { ...req.headers, host: target.host };
        delete headers.authorization;
        const up = request(target, { method: req.method, headers }, (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        });
        up.on('error', () => res.destroy());
        req.pipe(up);
        return;
      }
      res.writeHead(404).end();
    } catch {
      res.writeHead(500).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: `${base}/mcp`,
    issuer: base,
    get grants() {
      return state.grants;
    },
    get authorizations() {
      return state.authorizations;
    },
    get issued() {
      return state.issued;
    },
    expireTokens: () => valid.clear(),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
