#!/usr/bin/env python3
# The REPL on a real terminal: runs `tocha` on a pseudo-terminal (Python's standard pty module,
# no extra package), types into it and reads the screen text back. One case per ctest test:
#   python3 test_repl_pty.py path/to/tocha <case>     (exit 0 pass, 1 fail, 77 skip)
import os
import re
import select
import signal
import sys
import tempfile
import time

try:
    import fcntl
    import pty
    import struct
    import termios
except ImportError as e:  # not a POSIX system
    print('SKIP: no pseudo-terminal support (%s)' % e)
    sys.exit(77)

ANSI = re.compile(rb'\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r')


class Repl:
    """A tocha process on a pseudo-terminal, with expect-style reading."""

    def __init__(self, exe, args=(), env=None, cols=100, rows=40):
        self.exe = exe
        env = dict(os.environ if env is None else env)
        env.setdefault('TERM', 'xterm')
        env.setdefault('NO_COLOR', '1')
        env.setdefault('TOCHA_HISTORY', '')
        env['INPUTRC'] = '/dev/null'  # the user's key bindings must not change the test
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.execve(exe, [exe] + list(args), env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
        self.raw = b''   # everything read, escape codes included
        self.text = ''   # what is not consumed yet by expect(), escape codes removed
        self.status = None

    def _read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the process is gone
            data = b''
        if not data:
            return None
        self.raw += data
        self.text += ANSI.sub(b'', data).decode('utf-8', 'replace')
        return True

    def expect(self, pattern, timeout=15):
        """Waits for a regex in the output; consumes the output up to the match's end."""
        regex = re.compile(pattern)
        deadline = time.time() + timeout
        while True:
            m = regex.search(self.text)
            if m:
                self.text = self.text[m.end():]
                return m
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError('expected %r, got:\n%s\n(raw end: %r)' % (pattern, self.text[-3000:], self.raw[-300:]))
            if self._read(min(left, 0.2)) is None and not regex.search(self.text):
                raise AssertionError('tocha ended; expected %r, got:\n%s' % (pattern, self.text[-3000:]))

    def send(self, s):
        os.write(self.fd, s.encode())

    def line(self, s):
        self.send(s + '\r')

    def prompt(self):
        return self.expect(r'tocha> $|tocha> ')

    def exited(self):
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status) if hasattr(os, 'waitstatus_to_exitcode') \
                    else (os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status))
        return self.status is not None

    def wait(self, timeout=15):
        deadline = time.time() + timeout
        while not self.exited():
            if time.time() > deadline:
                raise AssertionError('tocha did not exit; output:\n' + self.text[-3000:])
            self._read(0.1)
        while self._read(0.05):
            pass
        return self.status

    def close(self):
        if not self.exited():
            self.send('\x04')
            try:
                self.wait(20)
            except AssertionError:
                os.kill(self.pid, signal.SIGKILL)
                self.wait(20)
        os.close(self.fd)


def start(exe, *args, **kw):
    r = Repl(exe, ['-q'] + list(args), **kw)
    r.prompt()
    return r


# ---- cases -------------------------------------------------------------------------------------
def case_completion(exe):
    r = start(exe)
    r.line('x = torch.ones(2, 3)')
    r.prompt()
    r.send('x:narrowCo\t')
    r.expect(r'x:narrowCopy\(')
    r.send('1, 1, 1)\r')                         # the completed call runs
    r.expect(r'\[torch\.FloatTensor of size 1x3\]')
    r.prompt()
    r.send('torch.Tens\t')
    r.expect(r'torch\.Tensor\(')
    r.send('\x15')                               # Ctrl-U clears the line
    r.send('x:s\t\t')                            # two Tabs list the candidates, by method name
    r.expect(r'squeeze')
    r.send('\x15')
    r.send('f = io.open("%s/test_repl_p\t' % os.path.dirname(os.path.abspath(__file__)))
    r.expect(r'test_repl_pty\.py"')              # file names inside a string
    r.close()


def case_multiline(exe):
    r = start(exe)
    r.line('function sq(v)')
    r.expect(r'\.\.> ')                          # the continuation prompt
    r.line('  return v * v')
    r.expect(r'\.\.> ')
    r.line('end')
    r.prompt()
    r.line('sq(12)')
    r.expect(r'144')
    r.line('t = {')
    r.expect(r'\.\.> ')
    r.line('  a = 1,')
    r.line('}')
    r.prompt()
    r.line('t.a + 1, nil')
    r.expect(r'2\s+nil')
    r.close()


def case_error_recovery(exe):
    r = start(exe)
    r.line('kept = 41')
    r.prompt()
    r.line('nosuch.field = 1')
    r.expect(r"stdin:1: attempt to index global 'nosuch'")
    r.prompt()
    r.line('function boom() error("deep") end')
    r.prompt()
    r.line('boom()')
    r.expect(r'stdin:1: deep\s+stack traceback:\s+stdin:1: in function .boom.')
    r.prompt()
    assert 'lua/torch' not in r.text and 'lua/tocha' not in r.text, r.text
    r.line('x = = 1')
    r.expect(r"stdin:1: unexpected symbol near '='")
    r.prompt()
    r.line('kept + 1')
    r.expect(r'42')
    r.close()


def case_ctrl_c_line(exe):
    r = start(exe)
    r.send('this is not run')
    r.expect('not run')
    r.send('\x03')
    r.expect(r'\^C')
    r.prompt()
    r.line('for i = 1, 2 do')                     # also drops an unfinished statement
    r.expect(r'\.\.> ')
    r.send('\x03')
    r.prompt()
    r.line('"still here"')
    r.expect(r'still here')
    r.close()


def interrupt_loop(exe, loop, check):
    r = start(exe)
    r.line('print("loop" .. "ing") ' + loop)
    r.expect(r'looping')
    time.sleep(0.5)
    r.send('\x03')
    r.expect(r'\[interrupt\] interrupted', timeout=10)
    r.prompt()
    r.line(check)
    r.expect(r'true')
    # Ctrl-D must reach readline itself: sent before the next prompt, the terminal is still in
    # cooked mode, the EOF is consumed there and the REPL then waits for input for good.
    r.prompt()
    r.close()
    assert r.status == 0, r.status


def case_ctrl_c_tensor_loop(exe):
    # JIT-compiled: stopped by the check in the C ABI guard at the next tensor op.
    interrupt_loop(exe, 'x = torch.zeros(3) while true do x:add(1) end', 'x[1] > 0')


def case_ctrl_c_lua_loop(exe):
    # Interpreted (creating a closure stops the JIT): stopped by the Lua count hook.
    interrupt_loop(exe, 'n = 0 while true do n = n + 1 local f = function() end end', 'n > 0')


def case_ctrl_c_twice(exe):
    # A compiled loop without tensor ops cannot be stopped: the second Ctrl-C ends tocha.
    r = start(exe)
    r.line('print("loop" .. "ing") n = 0 while true do n = n + 1 end')
    r.expect(r'looping')
    time.sleep(0.5)
    r.send('\x03')
    time.sleep(0.5)
    r.send('\x03')
    r.expect(r'Ctrl-C again')
    assert r.wait() == 130, r.status


def case_history(exe):
    with tempfile.TemporaryDirectory(dir=os.environ.get('TOCHA_TEST_TMP')) as tmp:
        path = os.path.join(tmp, 'history')
        env = dict(os.environ, TOCHA_HISTORY=path)
        r = start(exe, env=env)
        r.line('histvalue = 6 * 7')
        r.prompt()
        r.line('"second"')
        r.prompt()
        r.close()
        with open(path) as f:
            lines = f.read().splitlines()
        assert lines[-2:] == ['histvalue = 6 * 7', '"second"'], lines
        r = start(exe, env=env)                   # a new process reads it back
        r.send('\x1b[A\x1b[A')                    # Up, Up
        r.expect(r'histvalue = 6 \* 7')
        r.send('\r')
        r.prompt()
        r.line('histvalue')
        r.expect(r'42')
        r.send('\x12six\r')                       # Ctrl-R searches the history
        r.prompt()
        r.line('histvalue + 0')
        r.expect(r'42')
        r.close()
        env = dict(os.environ, TOCHA_HISTORY='', HOME=tmp)  # "" disables it
        r = start(exe, env=env)
        r.line('1')
        r.prompt()
        r.close()
        assert not os.path.exists(os.path.join(tmp, '.tocha_history'))


def case_help(exe):
    r = start(exe)
    r.line('?torch.mm')
    r.expect(r'torch\.mm\(')
    r.expect(r'sparse_mm\.lua')  # torch.mm dispatches sparse operands (Note [torch.mm dispatch])
    r.prompt()
    r.line('?torch.exp')
    r.expect(r'torch\.exp\(\[res,\] x\)')
    r.expect(r'Example:\s+torch\.exp\(torch\.zeros\(2\)\)')
    r.prompt()
    r.line('help(torch.add)')
    r.expect(r'torch\.add\(\[res,\] a, \[value,\] b\)')
    r.prompt()
    r.line('?')
    r.expect(r'Ctrl-D exits')
    r.close()


def case_colors(exe):
    r = Repl(exe, ['-q'], env=dict(os.environ, NO_COLOR=''))
    r.prompt()
    r.line('1 + 1')
    r.expect(r'2')
    r.prompt()
    assert b'\x1b[0;36m2' in r.raw, r.raw       # numbers in cyan, as in trepl
    r.close()


def case_piped_stdin(exe):
    # Not a terminal: no readline, no prompt, no banner, only results.
    import subprocess
    out = subprocess.run([exe], input='x = 20\nx + 1\nfunction f()\n  return "ok"\nend\nf()\n',
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                         timeout=30)
    assert out.stdout == '21\nok\n', repr(out.stdout)
    assert out.stderr == '', out.stderr
    assert out.returncode == 0


def main():
    if len(sys.argv) != 3:
        print(__doc__ or 'usage: test_repl_pty.py TOCHA CASE')
        return 2
    exe, case = sys.argv[1], sys.argv[2]
    fn = globals().get('case_' + case)
    if not fn:
        print('unknown case ' + case)
        return 2
    try:
        fn(exe)
    except AssertionError as e:
        print('FAIL %s: %s' % (case, e))
        return 1
    print('PASS ' + case)
    return 0


if __name__ == '__main__':
    sys.exit(main())
