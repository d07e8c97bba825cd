# A ports question answered with data: the setup starts a listener
# (eval-portd, perl under another name) on a port the system picks; the
# table returned must hold that port. The check stops it.
{
    name: "proc-listening-ports"
    request: "Which TCP ports are listening for connections on this machine? Give me a table of them."
    tags: [processes ports data]
    kind: data
    setup: {||
        let state = $env.HOME | path dirname | path join state
        let bin = $state | path join eval-portd
        let portfile = $state | path join eval-portd.port
        ^ln -s (which -a perl | where type == external | get 0.path) $bin
        let serve = 'use IO::Socket::INET; my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 5) or die $!; open my $f, ">", "$ARGV[0].tmp" or die $!; print $f $s->sockport; close $f; rename "$ARGV[0].tmp", $ARGV[0]; sleep 300'
        job spawn { try { ^$bin -e $serve $portfile } }
        mut tries = 0
        while (not ($portfile | path exists)) and $tries < 50 {
            sleep 100ms
            $tries += 1
        }
    }
    check: {|r|
        ps | where name == "eval-portd" and ppid == $nu.pid | each {|p| kill $p.pid } | ignore
        let portfile = $env.HOME | path dirname | path join state eval-portd.port
        if not ($portfile | path exists) { return {ok: false, reason: "the listener never started"} }
        let port = open --raw $portfile | str trim
        let shown = if ($r.data | describe) == "string" { $r.data } else { $r.data | to nuon }
        if not ($shown =~ $'\b($port)\b') {
            return {ok: false, reason: $"the data returned does not hold port ($port): ($shown | str substring 0..300)"}
        }
        true
    }
    script: [
        {nu: "^ss -ltnH | lines | split column --collapse-empty ' ' state recv_q send_q local peer | select local | insert port {|row| $row.local | split row ':' | last | into int } | uniq-by port | sort-by port", why: "the listening TCP sockets"}
        {answer: "These TCP ports are listening:", out: 0}
    ]
    wrong: [
        {nu: "^ss -tnH | lines", why: "TCP sockets"}
        {answer: "The open TCP connections:", out: 0}
    ]
}
