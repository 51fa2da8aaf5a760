#!/usr/bin/env node
import { main } from '../dist/surfaces/cli/main.js';
main(process.argv).then((code) => { process.exitCode = code; });
