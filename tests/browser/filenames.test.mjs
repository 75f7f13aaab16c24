// filenames.test.mjs: a file name chosen by the sender cannot disguise the
// file the page offers: bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE
// and the rest) and control characters become "_", as in the CLI
// (docs/CLI.md), in the name shown and in the download's name.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import { missing, serverAndBrowser, newContext, openLink, shown, api } from './helpers.mjs';

const skip = missing();

describe('file names', { skip: skip || false }, () => {
	let srv, browser;

	serverAndBrowser(null, (s, b) => { srv = s; browser = b; });

	test('a name with U+202E and other bidi controls is offered under the name with them replaced', async () => {
		// Shown by a bidi-aware renderer as "invoice_exe.pdf"-like text; it is an .exe.
		const names = [
			['invoice\u202Efdp.exe', 'invoice_fdp.exe'],
			['a\u2066b\u2067c\u2068d\u2069e\u200Ef\u200Fg\u061Ch\u202Ai\u202Bj\u202Ck\u202Dl.txt', 'a_b_c_d_e_f_g_h_i_j_k_l.txt'],
			['c1\u009bcontrol.txt', 'c1_control.txt'],
		];
		const res = await api(srv.base, 'POST', null, {
			files: names.map(([name], i) => ({
				filename: name, mimeType: 'text/plain', data: `data:text/plain;base64,${Buffer.from(`file ${i}`).toString('base64')}`,
			})),
		});
		assert.equal(res.status, 200, JSON.stringify(res.json));
		const ctx = await newContext(browser);
		try {
			const p = await ctx.newPage();
			await openLink(p, res.json.secretUrl);
			await p.click('#reveal-button');
			await shown(p, 'secret-view');
			const links = p.locator('#files a[download]');
			assert.equal(await links.count(), names.length);
			for (let i = 0; i < names.length; i++) {
				const want = names[i][1];
				assert.equal(await p.locator('#files .file-name').nth(i).textContent(), want);
				assert.equal(await links.nth(i).getAttribute('download'), want);
				const [download] = await Promise.all([p.waitForEvent('download'), links.nth(i).click()]);
				assert.equal(download.suggestedFilename(), want);
			}
			assert.deepEqual(ctx.problems, []);
		} finally {
			await ctx.close();
		}
	});
});
