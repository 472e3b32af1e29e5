// oidc-provider ships no type declarations: the SSO test uses a small part of it (a test-only dev dependency).
declare module 'oidc-provider';
