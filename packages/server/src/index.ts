/** @dossier/server: the Koa HTTP API over a Dossier instance. */
export { API_VERSION, allRoutes, createApp } from './app.ts';
export { loadConfig, SETTINGS, type ServerConfig, settingsTable } from './config.ts';
export { createLogger } from './logger.ts';
export { bannerAdminLine, type RunningServer, type StartOptions, startServer } from './server.ts';
