import type { Access, AgentCaller, Dossier, Principal, SessionClaims, WebhookCaller } from '@dossier/core';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { ServerConfig } from '../config.ts';
import type { RequestLimits } from '../http/limits.ts';
import type { McpEndpoint } from '../mcp/endpoint.ts';
import type { PeopleOptions } from '../people/config.ts';
import type { ORG_ROLES } from '@dossier/core/vocabulary';

/** How a route authenticates (documented in the OpenAPI document). */
export type AuthMode = 'key' | 'key-or-public' | 'jwt' | 'jwt-or-key' | 'jwt-or-org-key' | 'key-or-oauth' | 'none' | 'upload-url';

/** The modes that accept a signed-in user (a JWT): their routes declare the role a user needs (RouteRole). */
export type UserAuthMode = 'jwt' | 'jwt-or-key' | 'jwt-or-org-key';

/**
 * The role a signed-in caller needs to go through a route (issue 33; docs/access.md). The router checks it for every
 * JWT caller after authenticating and before the body is read (http/roles.ts):
 * - `admin`: the admin role in the org of the path: every write of the management plane (orgs, projects, members,
 *   keys, agents, webhook endpoints, connected clients), agent drafts and previews included;
 * - `member`: any role in the org of the path: reads, invoking saved agents, deleting one's own runs;
 * - `account`: any signed-in account, with no org in the path (the caller's own orgs, a new org, its password).
 * Callers that are not people (project keys, org keys, OAuth tokens, anonymous readers) hold no org role: the route's
 * auth mode and their own project, sandbox or grant bound them.
 */
export type RouteRole = (typeof ORG_ROLES)[number] | 'account';

/**
 * What a handler knows of its caller, by the route's auth mode: the router computes it once from the authenticated
 * principal (http/auth.ts CALLERS), so a handler never re-reads the request's state or checks the caller's kind again.
 */
export interface CallerByMode {
  /** The project sandbox of the API key (or of the OAuth token an MCP tool call carries). */
  key: NonNullable<Access>;
  /** The key's sandbox, or null for an anonymous reader (public collections only). */
  'key-or-public': Access;
  /** The signed-in person. */
  jwt: SessionClaims;
  /** A signed-in person or a project API key (the webhook routes). */
  'jwt-or-key': WebhookCaller;
  /** A signed-in person or an org API key (invoking hosted agents). */
  'jwt-or-org-key': AgentCaller;
  /** The MCP endpoint's principal: a project API key, or an OAuth token with its scopes. */
  'key-or-oauth': Extract<Principal, { kind: 'project_key' | 'oauth' }>;
  /** Credentials are not read. */
  none: undefined;
  /** The upload URL carries its own token, which the handler checks. */
  'upload-url': undefined;
}

/** The caller a handler of a route with auth mode `A` receives. */
export type CallerOf<A extends AuthMode> = CallerByMode[A];

/** Who may call a route: its auth mode, and with a mode that takes a JWT, the role a user needs. */
export type RouteAccess<A extends AuthMode = AuthMode> = A extends UserAuthMode
  ? {
      /** Who may call it: enforced by the router before the body is read (http/auth.ts AUTH_RULES). */
      auth: A;
      /** The role a signed-in caller needs (enforced centrally by the router: http/roles.ts). */
      role: RouteRole;
    }
  : {
      /** Who may call it: enforced by the router before the body is read (http/auth.ts AUTH_RULES). */
      auth: A;
      /** No JWT is accepted, so no org role applies. */
      role?: undefined;
    };

/** A JSON response: what the route sends with this status, described by the zod schema that types the handler's reply. */
export interface JsonResponse<S extends z.ZodType = z.ZodType> {
  description: string;
  schema: S;
}

/** A response that is not JSON (a stream, Markdown, bytes): its media type, for the OpenAPI document. */
export interface OtherResponse {
  description: string;
  contentType: 'text/event-stream' | 'text/markdown' | 'application/octet-stream' | 'image/png';
}

/**
 * What a route answers, by status: a JSON schema, another media type, or a bare description (an error status gets
 * the `{error}` body; 204 and other success statuses without a schema have no body).
 */
export type Responses = Record<number, string | JsonResponse | OtherResponse>;

/** The parsed value of an optional schema (undefined when the route declares none). */
type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Statuses of `R` that carry a JSON schema. */
type JsonStatus<R> = { [K in keyof R]: R[K] extends JsonResponse ? K : never }[keyof R];

/** Sends a status with the body its schema describes: `reply(200, collection)` does not compile if the value does not match. */
export type Reply<R> = <K extends JsonStatus<R>>(status: K, body: R[K] extends JsonResponse<infer S> ? z.output<S> : never) => void;

/** What a handler receives: its caller as its auth mode gives it, the body and query parsed once by the route's schemas, and its typed reply. */
export interface RouteInput<B, Q, R, A extends AuthMode = AuthMode> {
  caller: CallerOf<A>;
  body: Parsed<B>;
  query: Parsed<Q>;
  reply: Reply<R>;
}

/** A route's declaration besides its access (RouteAccess). */
interface RouteFields<B extends z.ZodType | undefined, Q extends z.ZodType | undefined, R extends Responses, A extends AuthMode> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  /** Stable camelCase name of the operation, unique across the API (generated clients name their methods by it). */
  operationId?: string;
  summary: string;
  tag: string;
  /** Also accept the API key as `?key=` (event streams: a browser EventSource cannot set headers). */
  queryKey?: true;
  /** A creating route that honours `Idempotency-Key` (http/idempotency.ts). */
  idempotent?: true;
  /** JSON body schema (validated before the handler runs). */
  body?: B;
  /** Query-string schema. */
  query?: Q;
  /** Largest JSON body (default 1 MB; bulk routes take more). */
  maxBodyBytes?: number;
  /**
   * A body the handler reads and checks itself, for the OpenAPI document: the OAuth endpoints, whose errors take
   * their RFCs' form (`{error: <code>, error_description}`), and the server-rendered pages' forms.
   */
  rawBody?: { type: 'application/json' | 'application/x-www-form-urlencoded'; schema: z.ZodType };
  /** Non-JSON request body, for the OpenAPI document. */
  bodyType?: 'multipart/form-data' | 'application/octet-stream';
  /** The file field of a multipart upload (with `tags` and `metadata` beside it): one file, or the field repeated. */
  uploads?: 'one' | 'many';
  /** Another multipart form, for the OpenAPI document: its fields as a JSON Schema object (files: format binary). */
  multipartForm?: { type: 'object'; required: string[]; properties: Record<string, unknown> };
  /** What a 2xx (and a refusal) answer is when it is not JSON: a server-rendered page. */
  produces?: 'text/html';
  /** The responses by status. */
  responses: R;
  /**
   * Streams, long-polls, research and file uploads: exempt from the request timeout (they bound their own time;
   * their bodies still get the idle timeout).
   */
  longRunning?: true;
  /** Produces the response: `input.reply(status, body)`, or sets ctx.status and ctx.body itself (streams, bytes). */
  handle: (ctx: Context, input: RouteInput<B, Q, R, A>) => Promise<void>;
}

/** One HTTP route, declared as data so the router and the OpenAPI document come from the same list. */
export type RouteDef<
  B extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  R extends Responses = Responses,
  A extends AuthMode = AuthMode,
> = RouteFields<B, Q, R, A> & RouteAccess<A>;

/** A route of any schemas, as the router and the OpenAPI document see it. */
export type AnyRoute = RouteDef<z.ZodType | undefined, z.ZodType | undefined, Responses>;

/**
 * Declare a route with typed input and replies: the handler's `caller` is what the route's auth mode gives
 * (CallerByMode), its `body` and `query` are the outputs of the route's schemas, and `reply` accepts only the
 * statuses and shapes its `responses` declare.
 */
export function route<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  const R extends Responses = Responses,
  const A extends AuthMode = AuthMode,
>(def: RouteDef<B, Q, R, A>): AnyRoute {
  return def as unknown as AnyRoute;
}

/** What route modules are built from. */
export interface RouteDeps {
  dossier: Dossier;
  config: Readonly<ServerConfig>;
  /** Base address used in presigned upload URLs (known once the server listens). */
  publicUrl: () => string;
  /** Rate limits and login throttling of this server. */
  limits: RequestLimits;
  /** The MCP endpoint behind /mcp (absent where routes are only listed). */
  mcp?: () => McpEndpoint;
  /** How people sign in and how their links reach them (issue 42; default: passwords on, no mail, no SSO). */
  people?: PeopleOptions;
  /** Whether this server serves the dashboard at `/` (sign-ins from the server's pages then continue there). */
  dashboard?: boolean;
}

/** Respond with JSON and a status. */
export function send(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
}

/** Respond 204 with no body. */
export function noContent(ctx: Context): void {
  ctx.status = 204;
  ctx.body = null;
}
