// syslog.mjs: a log daemon's datagram socket for a test: what the programs
// send it with audit_syslog = yes (audit_syslog_socket names it), captured.
//
//   const log = await syslogSink(dir);   // log.path: the socket
//   ... run programs ...
//   const lines = await log.stop();      // every datagram received, in order
//
// Node has no Unix datagram sockets; a Python listener binds it, and on
// SIGTERM reads what is still queued before it exits, so stop() returns every
// datagram sent before it was called (the kernel queued them at send()).
import { spawn } from 'node:child_process';
import path from 'node:path';

const LISTENER = `
import os, signal, socket, sys
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
f = open(out, 'wb')
def drain(*_):
    s.setblocking(False)
    try:
        while True:
            f.write(s.recv(65536) + b'\\n')
    except BlockingIOError:
        pass
    f.close()
    os._exit(0)
signal.signal(signal.SIGTERM, drain)
print('ready', flush=True)
while True:
    d = s.recv(65536)
    f.write(d + b'\\n')
    f.flush()
`;

export async function syslogSink(dir) {
	const sock = path.join(dir, 'log.sock');
	const out = path.join(dir, 'log.txt');
	const p = spawn('python3', ['-c', LISTENER, sock, out], { stdio: ['ignore', 'pipe', 'inherit'] });
	await new Promise((resolve, reject) => {
		p.on('error', reject);
		p.on('exit', (c) => reject(new Error(`syslog listener exited: ${c}`)));
		p.stdout.once('data', () => resolve());
	});
	p.removeAllListeners('exit');
	return {
		path: sock,
		async stop() {
			const done = new Promise((resolve) => p.on('exit', resolve));
			p.kill('SIGTERM');
			await done;
			const fs = await import('node:fs');
			return fs.readFileSync(out, 'utf8').split('\n').filter((l) => l !== '');
		},
	};
}
