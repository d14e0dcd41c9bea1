#!/usr/bin/perl
# trace-canon.pl STRACE_OUT PCL_TRACE_OUT: compare the calls strace and pcl
# trace decoded (openat, read, write, close, mmap, newfstatat), one by one:
# fds, paths, flags, sizes and results. A path pcl marks as read late
# ("..."?) or prints as a pointer is not compared (it may not be what the
# call saw), but counted. Prints the differences and exits 1 if any; else
# prints "N calls, P exact paths, L late".
use strict;
use warnings;

# split "a, "b,c", {x, y}, d" at the commas outside strings and braces
sub split_args {
	my ($s) = @_;
	my (@out, $cur, $depth, $instr);
	$cur = ''; $depth = 0; $instr = 0;
	for (my $i = 0; $i < length $s; $i++) {
		my $c = substr($s, $i, 1);
		if ($instr) {
			$cur .= $c;
			if ($c eq '\\') { $cur .= substr($s, ++$i, 1); next; }
			$instr = 0 if $c eq '"';
			next;
		}
		if ($c eq '"') { $instr = 1; }
		elsif ($c eq '{' || $c eq '[' || $c eq '(') { $depth++; }
		elsif ($c eq '}' || $c eq ']' || $c eq ')') { $depth--; }
		elsif ($c eq ',' && !$depth) { push @out, $cur; $cur = ''; next; }
		$cur .= $c;
	}
	push @out, $cur if length $cur;
	s/^\s+|\s+$//g for @out;
	return @out;
}

sub ret_of {
	my ($r) = @_;
	return $1 if $r =~ /^-1 (E[A-Z0-9]+)/;
	return 'ptr' if $r =~ /^0x/;
	$r =~ s/\s.*//;
	return $r;
}

# a flag set in a canonical order: strace and perf (pcl) name the bits in different orders
sub sorted { my ($f) = @_; return join '|', sort split /\|/, ($f // ''); }
sub flags { my ($f, $pre) = @_; $f =~ s/\b$pre//g; return $f eq '0' ? '' : sorted($f); }

sub strace_calls {
	my ($file) = @_;
	my @calls;
	open my $fh, '<', $file or die "$file: $!";
	while (<$fh>) {
		chomp;
		next unless /^(\w+)\((.*)\)\s+= (.*)$/;
		my ($name, $args, $ret) = ($1, $2, $3);
		my @a = split_args($args);
		my %c = (name => $name, ret => ret_of($ret));
		if ($name eq 'openat') {
			%c = (%c, dfd => ($a[0] eq 'AT_FDCWD' ? 'CWD' : $a[0]), path => $a[1], flags => flags($a[2], 'O_'));
		} elsif ($name eq 'read' || $name eq 'write') {
			%c = (%c, fd => $a[0], count => $a[2]);
		} elsif ($name eq 'close') {
			%c = (%c, fd => $a[0]);
		} elsif ($name eq 'mmap') {
			%c = (%c, len => $a[1], prot => flags($a[2], 'PROT_'), flags => flags($a[3], 'MAP_'));
			$c{fd} = $a[4] unless $a[3] =~ /ANONYMOUS/;
		} elsif ($name eq 'newfstatat') {
			%c = (%c, dfd => ($a[0] eq 'AT_FDCWD' ? 'CWD' : $a[0]), path => $a[1], flags => flags($a[3], 'AT_'));
		} else { next; }
		push @calls, \%c;
	}
	return @calls;
}

sub pcl_calls {
	my ($file) = @_;
	my @calls;
	open my $fh, '<', $file or die "$file: $!";
	while (<$fh>) {
		chomp;
		next unless /\): \S+ (\w+)\((.*)\)\s+= (.*)$/;
		my ($name, $args, $ret) = ($1, $2, $3);
		my %a;
		for my $kv (split_args($args)) {
			$a{$1} = $2 if $kv =~ /^(\w+): (.*)$/s;
		}
		my %c = (name => $name, ret => ret_of($ret));
		my $path = $a{filename} // '';
		$path = '?' if $path !~ /^".*"$/;   # late ("..."?) or a pointer
		if ($name eq 'openat') {
			%c = (%c, dfd => $a{dfd} // 0, path => $path, flags => sorted($a{flags}));
		} elsif ($name eq 'read' || $name eq 'write') {
			%c = (%c, fd => $a{fd} // 0, count => $a{count} // 0);
		} elsif ($name eq 'close') {
			%c = (%c, fd => $a{fd} // 0);
		} elsif ($name eq 'mmap') {
			%c = (%c, len => $a{len} // 0, prot => sorted($a{prot}), flags => sorted($a{flags}));
			$c{fd} = $a{fd} // 0 unless $a{flags} =~ /ANONYMOUS/;
		} elsif ($name eq 'newfstatat') {
			%c = (%c, dfd => $a{dfd} // 0, path => $path, flags => sorted($a{flag}));
		} else { next; }
		push @calls, \%c;
	}
	return @calls;
}

sub show { my ($c) = @_; return join ' ', map { "$_=$c->{$_}" } sort keys %$c; }

my @s = strace_calls($ARGV[0]);
my @p = pcl_calls($ARGV[1]);
my ($bad, $exact, $late) = (0, 0, 0);
if (@s != @p) {
	print "strace decoded ", scalar @s, " calls, pcl ", scalar @p, "\n";
	$bad++;
}
for my $i (0 .. ($#s < $#p ? $#s : $#p)) {
	my ($x, $y) = ($s[$i], $p[$i]);
	my %k = map { $_ => 1 } keys %$x, keys %$y;
	my @diff;
	for my $k (sort keys %k) {
		my ($a, $b) = ($x->{$k} // '(none)', $y->{$k} // '(none)');
		if ($k eq 'path' && $b eq '?') { $late++; next; }
		$exact++ if $k eq 'path';
		push @diff, "$k: strace $a, pcl $b" if $a ne $b;
	}
	if (@diff) {
		print "call $i: ", join('; ', @diff), "\n  strace: ", show($x), "\n  pcl:    ", show($y), "\n";
		last if ++$bad > 10;
	}
}
print scalar(@p), " calls, $exact exact paths, $late late\n";
exit($bad ? 1 : 0);
