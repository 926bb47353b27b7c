// A real OAuth 2 authorization server for the tests: node-oidc-provider (a certified OpenID Provider), on 127.0.0.1.
//
//   node auth_server.mjs RESOURCE CLIENTS_JSON [opaque]
//
// RESOURCE is the protected resource (lackpy serve's /mcp URL): the tokens the server issues for it are JWTs
// signed with a key made at start (RS256), with aud = RESOURCE, or with "opaque" opaque tokens that the resource
// server introspects (RFC 7662). CLIENTS_JSON lists the clients, each {"client_id", "client_secret", "scope"}, all
// using the client credentials grant (a resource server introspects as one of them). Prints "READY <issuer>" once it listens.
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const [resource, clientsJson, format] = process.argv.slice(2);
const clients = JSON.parse(clientsJson);
const scopes = [...new Set(clients.flatMap((client) => client.scope.split(' ')))];
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };

const server = await new Promise((resolve) => {
  const probe = (async () => {
    const { createServer } = await import('node:http');
    const http = createServer();
    http.listen(0, '127.0.0.1', () => resolve(http));
  })();
  void probe;
});
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: clients.map((client) => ({
    client_id: client.client_id,
    client_secret: client.client_secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    scope: client.scope,
    token_endpoint_auth_method: 'client_secret_basic',
  })),
  jwks: { keys: [jwk] },
  scopes,
  features: {
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
        return { scope: scopes.join(' '), audience: resource, accessTokenTTL: 600, ...(format === 'opaque' ? { accessTokenFormat: 'opaque' } : { accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }) };
      },
    },
  },
});
provider.proxy = false;
server.on('request', provider.callback());
process.stdout.write(`READY ${issuer}\n`);
