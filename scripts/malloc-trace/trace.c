/* Logs every malloc, free and realloc of a program (LD_PRELOAD) as (op, address, size) triples
 * of 8-byte numbers, op 1 = allocated, 2 = freed, to $MALLOC_TRACE_OUT (default
 * malloc-trace.bin), for map.py to lay out by address at the program's marks: which freed
 * blocks split the heap, and why a large list does not fit in the room they leave.
 *
 *   gcc -O2 -shared -fPIC -o /tmp/trace.so scripts/malloc-trace/trace.c -lpthread
 *   TRACELENS_TIMING=alloc LD_PRELOAD=/tmp/trace.so MALLOC_TRACE_OUT=/tmp/m.bin \
 *     target/release/tracelens profile FILE > /dev/null
 *   python3 scripts/malloc-trace/map.py /tmp/m.bin
 *
 * It sees what goes through glibc's malloc, so it lays out a build that uses the system
 * allocator. A development tool: not built or run by the tests. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <pthread.h>
extern void *__libc_malloc(size_t); extern void __libc_free(void*); extern void *__libc_realloc(void*, size_t);
extern void *__libc_calloc(size_t,size_t); extern void *__libc_memalign(size_t,size_t);
static int fd=-1; static pthread_mutex_t mu=PTHREAD_MUTEX_INITIALIZER;
#define BUFN 65536
static uint64_t buf[BUFN]; static int n=0; static int busy=0;
static void flush(void){ if(fd>=0&&n){ write(fd,buf,n*8); } n=0; }
static void lg(uint64_t op, uint64_t a, uint64_t s){
  pthread_mutex_lock(&mu);
  if(fd<0){ fd=open(getenv("MALLOC_TRACE_OUT") ? getenv("MALLOC_TRACE_OUT") : "malloc-trace.bin",O_WRONLY|O_CREAT|O_TRUNC,0644);} 
  if(n+3>BUFN) flush();
  buf[n++]=op; buf[n++]=a; buf[n++]=s;
  pthread_mutex_unlock(&mu);
}
__attribute__((destructor)) static void fin(void){ pthread_mutex_lock(&mu); flush(); pthread_mutex_unlock(&mu);} 
void *malloc(size_t s){ void*p=__libc_malloc(s); lg(1,(uint64_t)p,s); return p; }
void free(void*p){ if(!p) return; lg(2,(uint64_t)p,0); __libc_free(p); }
void *calloc(size_t a,size_t b){ void*p=__libc_calloc(a,b); lg(1,(uint64_t)p,a*b); return p; }
void *realloc(void*q,size_t s){ void*p=__libc_realloc(q,s); if(q) lg(2,(uint64_t)q,0); if(p) lg(1,(uint64_t)p,s); return p; }
int posix_memalign(void**r,size_t al,size_t s){ void*p=__libc_memalign(al,s); if(!p) return 12; *r=p; lg(1,(uint64_t)p,s); return 0; }
void *aligned_alloc(size_t al,size_t s){ void*p=__libc_memalign(al,s); lg(1,(uint64_t)p,s); return p; }
void *memalign(size_t al,size_t s){ void*p=__libc_memalign(al,s); lg(1,(uint64_t)p,s); return p; }
