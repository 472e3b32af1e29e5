#!/usr/bin/env node
// The workspace's `dossier` bin: runs the TypeScript source through tsx (the release build is one file; see scripts/build-sea.sh).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
