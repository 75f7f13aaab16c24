// loader.mjs: a module resolution hook (registered by preload.mjs). A test file
// of tests/cgi, tests/http or tests/notify that imports node:test gets node-test.mjs instead,
// told which file it serves.
const wrapper = new URL('./node-test.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
	if (specifier === 'node:test' && context.parentURL &&
	    /\/tests\/(cgi|http|notify)\/[^/]+\.test\.mjs$/.test(context.parentURL))
		return { url: `${wrapper}?from=${encodeURIComponent(context.parentURL)}`, shortCircuit: true };
	return next(specifier, context);
}
