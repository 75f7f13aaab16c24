// completion.test.mjs: the CLI's bash completion (cli/burnlink.bash-completion,
// installed by the burnlink-cli package as
// /usr/share/bash-completion/completions/burnlink), run in a real bash with
// Debian's bash-completion: the commands, and for each command the options
// its part of `burnlink --help` names, so that the completion cannot drift
// from the help.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCRIPT = path.join(ROOT, 'cli', 'burnlink.bash-completion');
const LIB = '/usr/share/bash-completion/bash_completion';
const skip = !fs.existsSync(LIB) && 'needs bash-completion (scripts/deps.sh test)';

// What bash offers for the words (the last one is being completed), one per line.
function complete(...words) {
	const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `
		. ${LIB}
		. "$1"
		shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}
		COMPREPLY=()
		_burnlink burnlink "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
		printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', SCRIPT, ...words], { encoding: 'utf8', cwd: ROOT });
	assert.equal(r.status, 0, r.stderr);
	return r.stdout.split('\n').filter(Boolean).sort();
}

// The options (-x, --long) of `burnlink --help` in the lines between two headings.
function helpOptions(from, to) {
	const help = spawnSync(process.execPath, [path.join(ROOT, 'cli', 'burnlink.mjs'), '--help'], { encoding: 'utf8' }).stdout;
	const part = help.slice(help.indexOf(from), to ? help.indexOf(to) : undefined);
	assert.ok(part.length > 0, `${from} in the help`);
	return [...new Set([...part.matchAll(/(?:^|[\s,(])(--?[a-zA-Z][\w-]*)/gm)].map((m) => m[1]))].sort();
}

test('the commands', { skip }, () => {
	assert.deepEqual(complete('burnlink', ''), ['answer', 'burn', 'config', 'get', 'request', 'status']);
	assert.deepEqual(complete('burnlink', 'st'), ['status']);
});

const COMMON = helpOptions('Common:', 'Environment:');

// each command, the part of the help that names its options
for (const [words, from, to] of [
	[['burnlink'], 'Sending:', 'Receiving (get):'],
	[['burnlink', 'get'], 'Receiving (get):', 'Secret requests'],
	[['burnlink', 'request'], 'Secret requests', 'status, burn and config:'],
	[['burnlink', 'burn'], 'status, burn and config:', 'Common:'],
	[['burnlink', 'status'], 'status, burn and config:', 'burn with a secret link'],
]) {
	test(`${words.join(' ')} -<TAB> offers every option its help names`, { skip }, () => {
		const offered = complete(...words, '-');
		let want = [...helpOptions(from, to), ...COMMON];
		// the request section's prose names answer's --file and get's options too
		if (words[1] === 'request') want = want.filter((o) => !['-f', '--file'].includes(o));
		for (const o of want)
			assert.ok(offered.includes(o), `${words.join(' ')}: ${o} is not offered (offered: ${offered.join(' ')})`);
	});
}

test('option values: --notify, --views, files and directories', { skip }, () => {
	assert.deepEqual(complete('burnlink', '--notify', ''), ['email', 'email,webhook', 'webhook']);
	assert.ok(complete('burnlink', '--views', '').includes('unlimited'));
	const dir = complete('burnlink', 'get', '-o', 'cl');
	assert.ok(dir.includes('cli'), `a directory: ${dir.join(' ')}`);
});
