#!/usr/bin/env node
// The `engine` command. A committed launcher (not the compiled file itself) so that
// `npm install` can link it before the build has produced dist/.
import '../dist/cli/main.js';
