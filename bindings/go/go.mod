module mxnet.local/mxnet

go 1.19
