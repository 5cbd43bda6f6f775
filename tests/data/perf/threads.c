#include <pthread.h>
#include <stdint.h>
volatile uint64_t sink;
__attribute__((noinline)) void spin(int n) { for (int i = 0; i < n; i++) sink += i * 7; }
__attribute__((noinline)) void parse_work(int n) { for (int k = 0; k < 4; k++) spin(n / 4); }
__attribute__((noinline)) void render_work(int n) { spin(n); spin(n / 2); }
__attribute__((noinline)) void *worker(void *arg) {
    for (int r = 0; r < 1200; r++) parse_work(400000);
    return arg;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    for (int r = 0; r < 1200; r++) render_work(300000);
    pthread_join(t, 0);
    return 0;
}
