#!/usr/bin/env perl
# Print "NAME HEADER" for every function (or variable) declared PCL_API in
# the headers given. A declaration runs from PCL_API to its ';' (comments
# and preprocessor lines removed first); the name is the last identifier
# before its first '(' (a function), else its last identifier. Used by
# tests/e2e/t-abi.sh and to write lib/libpcl.map.
use strict;
use warnings;

local $/;
for my $file (@ARGV) {
	open(my $fh, '<', $file) or die "$file: $!\n";
	my $s = <$fh>;
	close($fh);
	$s =~ s{/\*.*?\*/}{ }gs;
	$s =~ s{//[^\n]*}{}g;
	$s =~ s{^[ \t]*#[^\n]*(?:\\\n[^\n]*)*}{}gm;
	while ($s =~ /\bPCL_API\b([^;{]*)/g) {
		my $d = $1;
		my $n;
		if ($d =~ /^([^(]*)\(/) {
			($n) = $1 =~ /(\w+)\s*$/;
		} else {
			($n) = $d =~ /(\w+)[\s\[\]\w]*$/;
		}
		print "$n $file\n" if defined $n;
	}
}
