# Heavy-tailed memory message sizes for edmsim (bytes, cumulative probability).
#
# Synthetic, not measured: a bounded Pareto distribution with shape 1.1
# between 64 B (one cache line) and 64 KiB,
#     F(x) = (1 - (64/x)^1.1) / (1 - (64/65536)^1.1),
# tabulated at 64 B * 2^(k/2), k = 0..20; edmsim interpolates linearly
# between points and rounds each sample up to whole 8-byte blocks. Its
# mean is about 370 B and its median 128 B; the 1% of messages above
# 3.9 KiB carry 32% of the bytes. The cap keeps a run of 100000 messages
# several times longer than its largest message's transfer (5.2 us).
#
# Why: the EDM paper's application traces (Hadoop, Spark, Spark SQL,
# GraphLab, Memcached, from Gao et al., OSDI 2016) are heavy-tailed with
# equal reads and writes, but neither they nor the authors' CDF files are
# available here, so this file stands in for them. Replace it with a CDF
# measured on your own workload, in the same two-column format: sizes
# strictly increasing, probabilities nondecreasing and ending at 1; the
# first point's probability is a point mass at its size.
64 0.000000
91 0.321184
128 0.533744
181 0.681655
256 0.782745
362 0.851748
512 0.898907
724 0.931098
1024 0.953099
1448 0.968117
2048 0.978381
2896 0.985387
4096 0.990175
5793 0.993445
8192 0.995677
11585 0.997202
16384 0.998244
23170 0.998955
32768 0.999441
46341 0.999773
65536 1.000000
