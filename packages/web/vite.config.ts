import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The dashboard builds to dist/, which the server serves at `/` (packages/server/src/http/dashboard-static.ts). */
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022', modulePreload: { polyfill: false } },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
