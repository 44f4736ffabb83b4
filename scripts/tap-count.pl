#!/usr/bin/perl
# SPDX-License-Identifier: MIT
#
# tap-count.pl [--guest] LOG: the tests of one suite's log, as prove reads
# them: TAP::Parser (Debian's perl, the parser of prove and TAP::Harness)
# parses the log and says which lines are tests, with their verdict and
# SKIP or TODO directive.  scripts/check.sh counts every suite with it.
#
# A log whose lines carry a "[vmN] " prefix (guest-run.sh -V) holds one
# stream per VM: the prefix is stripped and each VM's lines are parsed
# apart, the lines without one as a stream of their own.
#
# Without --guest each stream is one TAP stream (a host suite: one program
# printing one plan), and what TAP::Parser finds wrong with it -- no plan,
# a plan that does not match, tests out of sequence, "Bail out!" -- is one
# failure more.  With --guest a stream is the TAP of several programs in
# turn (a guest's suites, each numbering from 1 with its own plan, between
# the console's lines), so only the test lines count, and each "Bail out!".
#
# Prints "PASSED FAILED SKIPPED" (passed without the skipped; "not ok #
# TODO" is a pass, as for prove), then one line per problem found.
# Exit status 0, or 2 on a usage error or an unreadable log.
use strict;
use warnings;
use TAP::Parser;

my $guest = @ARGV && $ARGV[0] eq '--guest' ? shift @ARGV : 0;
if (@ARGV != 1) {
	print STDERR "usage: tap-count.pl [--guest] LOG\n";
	exit 2;
}
my $log = $ARGV[0];
open(my $fh, '<', $log) or do { print STDERR "tap-count.pl: $log: $!\n"; exit 2; };

# The streams, by VM ("" for the lines without a prefix), in order of
# first appearance.
my (%text, @order);
while (my $line = <$fh>) {
	my $vm = $line =~ s/^\[(vm[0-9]+)\] // ? $1 : '';
	push @order, $vm unless exists $text{$vm};
	$text{$vm} .= $line;
}
close($fh);
@order = ('') unless @order;
$text{''} //= '';

my ($pass, $fail, $skip) = (0, 0, 0);
my @problems;
for my $vm (@order) {
	# (an empty log is a stream without a plan)
	my $parser = TAP::Parser->new({ tap => $text{$vm} eq '' ? "\n" : $text{$vm} });
	my $where = $vm eq '' ? '' : "$vm: ";
	my $bailed = 0;

	while (my $r = $parser->next) {
		if ($r->is_bailout) {
			$bailed++;
			push @problems, "${where}Bail out! " . $r->explanation;
		}
		next unless $r->is_test;
		if ($r->has_skip && $r->is_actual_ok) {
			$skip++;
		} elsif ($r->is_actual_ok || $r->has_todo) {
			$pass++;
		} else {
			$fail++;
		}
	}
	if ($guest) {
		$fail += $bailed;
		next;
	}
	my @errors = $parser->parse_errors;
	push @problems, map { "${where}TAP: $_" } @errors;
	$fail++ if @errors || $bailed;
}
print "$pass $fail $skip\n";
print "$_\n" for @problems;
exit 0;
