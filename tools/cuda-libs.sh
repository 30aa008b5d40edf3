# Sourced by the tools/gpu-*.sh scripts, which run a build made elsewhere on a GPU machine: sets
# cuda_libs to the toolkit's library folders found here (NVRTC, cuBLAS), ':'-separated.
cuda_libs=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && cuda_libs="$d:$cuda_libs"
done
