# Sourced by the benchmark scripts: the median and the range of numbers read one per line.
# The median of an even count is the lower of the two middle ones.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { sort -n | awk 'NR==1 {lo=$1} {hi=$1} END {print lo "–" hi}'; }
