import type { OAuthEndpoint } from '@dossier/core';
import { MCP_PATH } from '../mcp/endpoint-path.ts';

/** The authorization server's issuer and the MCP resource, from the address clients reach the server at. */
export type OAuthUrls = OAuthEndpoint;

/** Issuer and resource for a public base URL (`https://dossier.example.com` → …/mcp). */
export function oauthUrls(publicUrl: string): OAuthUrls {
  const issuer = publicUrl.replace(/\/+$/, '');
  return { issuer, resource: `${issuer}${MCP_PATH}` };
}

/** Where the MCP resource's metadata is (RFC 9728 §3.1: the well-known name inserted before the resource's path). */
export const resourceMetadataUrl = (urls: OAuthUrls): string => `${urls.issuer}/.well-known/oauth-protected-resource${MCP_PATH}`;
